"""A class room's code: six characters a class reads off a projector and types on a phone.

The store draws codes from this alphabet (ui/room/store.py); a link's app-wide `room` choice accepts
only this shape (ui/registry/catalog.py).
"""
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"  # no I, L, O, 0, 1: read off a projector without doubt
CODE_LENGTH = 6
CODE_PATTERN = f"[{CODE_ALPHABET}]{{{CODE_LENGTH}}}"
