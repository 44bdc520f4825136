"""The bottom layer, imported by every other: words and the page's type.

- text.py: numbers and words as the pages write them, in either language
- i18n.py: the locale files (ui/locales/) and the translator
- page.py: `Page`, what the shell hands every page and every layer below it
- room_code.py: what a class room's code is made of (the store draws it, a link's `room` must match it)
"""
