"""The page kit: what a page calls to become a page of this app.

- shell.py: `setup(section)` (page config, the sidebar, the app-wide choices) and `part` (a part of a page that reruns alone)
- controls.py: `draw(page, key, column)`, a control drawn from the page's declaration in ui/registry/catalog.py
- lede.py: the first screen's one sentence of lesson, and the rest folded under it
- glossary.py: `note(page, *ids)`, the terms a page uses with their plain words in a tooltip
- access.py: what every page does for keyboard, screen-reader and zoom users (the page's language, scrolling boxes)
"""
