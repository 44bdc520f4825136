"""The Streamlit side of FFN Lab, in layers. Read it top-down; each layer imports only the layers below it
(tests/ui/test_layers.py fails on an upward import, an import cycle, or an import inside a function).

pages/*.py, dashboard.py    the pages: each reads as its lesson, top to bottom
server.py                   beside them: the one st.App's parts (dashboard.py assigns it): its routes, its lifespan
  │
server.py                   the parts of the one st.App (dashboard.py builds it): the lifespan that warms
  │                           the server at start-up, the routes (/ready)
kit/                        the page kit: what a page calls to become a page of this app
  │                           shell.py (setup, sidebar, part), controls.py (draw a declared control),
  │                           lede.py (the first screen's sentence), glossary.py (a term's plain words)
features                    what a page adds to its lesson
  │  questions/                 the questions a page asks (one module per page, pure), quiz.py (the ask form),
  │                             chart.py (the class's guesses)
  │  room/                      the class room: session.py (seat, store calls), views.py, chart.py, store.py, config.py,
  │                             passes.py (the cookie route: seats outlive reloads), push.py (Reveal reaches waiting pages)
  │  gpt/                       the GPT pages: probes.py, checkpoints.py (the memory forming in training), sections.py (page 8's extra sections)
blocks                      what a page draws with
  │  widgets.py                 chart, table, claim, takeaway, folded box, show the code, verdict
  │  charts/                    Altair builders, one module per page
  │  verdicts/                  a core result → the claims and takeaway a page shows (pure)
compute/                    cache.py (the pages' one cache), calls.py, sessions.py, fair_queue.py, result_cache.py, chart_spec.py, metrics.py,
  │                           allocator.py (process memory), warmup.py (a new server opens every default view),
  │                           neighbours.py (the views one move away), disk_cache.py (results shared on disk)
registry/                   catalog.py (every page and the controls its link carries), kinds.py (control kinds),
  │                           links.py (values and links from the declarations), query.py (the address bar)
base/                       text.py (numbers and words), i18n.py (locales/ and the translator), page.py (Page)

Within a layer, modules may import each other, without a cycle. The locale files stay in ui/locales/.
"""
