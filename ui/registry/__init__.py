"""The registry: every page, the controls its link carries, and the address bar.

- catalog.py: PAGES (file, menu icon, order), the app-wide choices (APP) and each page's controls (CONTROLS)
- kinds.py: the kinds of control those are declared with (Number, Choice, Toggle, Text, Several, ...)
- measures.py: what each page measures (BY_PAGE): the quantities its questions, and a teacher's, ask about
- rules.py: the rules a page's result is read by where its measures, verdict and built-in questions must agree
- links.py: a page's current values, links cleaned against the declarations, moving a page's controls
- query.py: reading and writing the address bar's parameters
"""
