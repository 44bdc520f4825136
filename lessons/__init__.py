"""The lessons a class room can run (`*.toml` beside this file) and the tool that checks them.

    python -m lessons check FILE [FILE ...]   # every bad step of each file, one line each; exit 1 if any
    python -m lessons measures [PAGE]         # what a teacher's question can ask, with its value at the defaults

A lesson file is UTF-8 TOML of at most 256 KB (ui/room/plan.py reads it). A file here that does not check out is
left out of the instructor's list of lessons, and its line is shown there.
"""
