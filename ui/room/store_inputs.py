"""What the class store makes of what a caller hands it: codes, tokens, guesses and views checked; keys, tokens
and addresses kept only hashed or sealed.

A room code is 6 characters of CODE_ALPHABET (`normalize_code` takes what a student typed). A
student is an anonymous token the page draws per session (`new_token()`), kept hashed. The instructor
key (`secrets`, 192 bits) is kept only as SHA-256 with a per-room salt; a one-time link's token is kept
only hashed, and its row holds the key XORed with a pad derived from that token, so neither the
database nor its backups hold a usable key.
"""
from __future__ import annotations

import hashlib
import ipaddress
import json
import math
import re
import secrets
from collections.abc import Mapping

from ui.base.room_code import CODE_PATTERN
from ui.room.store_records import MAX_QUESTION_ID, MAX_TOKEN, MAX_VIEW_PARAMS, MAX_VIEW_TEXT

OPTION_RE = re.compile(r"[A-Za-z0-9_.-]{1,32}")
_CODE_RE = re.compile(CODE_PATTERN)


def address_key(address: str) -> str:
    """What one client is, from its address: an IPv4 address, or an IPv6 address's /64 prefix (one household or
    one host has the whole /64, and a script could otherwise take a new address for every seat); other text as is."""
    try:
        ip = ipaddress.ip_address(address.strip())
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((int(ip) >> 64 << 64, 64)))
    return str(ip)


def new_token() -> str:
    """A student's anonymous session token (what a page keeps in st.session_state)."""
    return secrets.token_urlsafe(24)


def normalize_code(text: object) -> str | None:
    """A room code as a student may type it (any case, spaces) in canonical form, or None."""
    if not isinstance(text, str) or len(text) > 32:
        return None
    code = "".join(text.split()).upper()
    return code if _CODE_RE.fullmatch(code) else None


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _key_hash(salt: str, key: str) -> str:
    return _sha(salt + key)


def _xor(raw: bytes, token: str) -> bytes:
    # A pad derived from the link's token, apart from the token's own hash kept for look-up.
    pad = hashlib.sha512(b"ffnlab-link-key:" + token.encode("utf-8")).digest()
    return bytes(a ^ b for a, b in zip(raw, pad))


def _seal(key: str, token: str) -> str:
    return _xor(key.encode("ascii"), token).hex()


def _unseal(sealed: str, token: str) -> str:
    return _xor(bytes.fromhex(sealed), token).decode("ascii")


def _sealable(token: object) -> bool:
    # What `_seal` can hide whole: ASCII within the pad's 64 bytes (new_token() and keys are 32 characters).
    return _token_ok(token) and len(token) <= 64 and token.isascii()  # type: ignore[union-attr]


def _token_ok(token: object) -> bool:
    return isinstance(token, str) and 0 < len(token) <= MAX_TOKEN


def _question_ok(question_id: object) -> bool:
    return (isinstance(question_id, str) and 0 < len(question_id) <= MAX_QUESTION_ID
            and question_id.isprintable())


def _value(value: object) -> tuple[float | None, str | None] | None:
    """(number, option) for a guess the store takes, or None."""
    if isinstance(value, str):
        return (None, value) if OPTION_RE.fullmatch(value) else None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        number = float(value)
    except OverflowError:
        return None
    return (number, None) if math.isfinite(number) else None


def _view_params(params: object) -> str | None:
    """The params as JSON text, or None when they are not a small dict of short strings."""
    if not isinstance(params, Mapping) or len(params) > MAX_VIEW_PARAMS:
        return None
    for k, v in params.items():
        if not (isinstance(k, str) and isinstance(v, str) and 0 < len(k) <= MAX_VIEW_TEXT
                and len(v) <= MAX_VIEW_TEXT):
            return None
    return json.dumps(dict(params), ensure_ascii=False, sort_keys=True)
