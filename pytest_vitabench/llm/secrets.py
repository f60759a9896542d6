"""Keep credentials out of everything a run writes: terminal, logs at any level, reports, JUnit, caches.

An endpoint URL with credentials is refused (the HTTP library would send user-info in place of the key,
and request logs print the URL); every server error quoted in an error is redacted; and every log record of
the HTTP stack is redacted when it is created (``httpcore`` logs response headers at DEBUG level, which a
proxy echoing ``Authorization`` would fill with the key).
"""

from __future__ import annotations

import json
import logging
import re
import threading
from typing import Any
from urllib.parse import parse_qsl, urlsplit

#: Query parameters that carry credentials in the wild (Azure ``api-key``, signed URLs, tokens).
SECRET_QUERY_KEYS = frozenset({
    "key", "api-key", "api_key", "apikey", "token", "access_token", "auth", "password", "secret", "sig",
    "signature", "x-api-key",
})
#: Loggers whose records are redacted at creation.
# openai >= 3 speaks through httpx2 / httpcore2
REDACTED_LOGGERS = ("openai", "httpx", "httpcore", "httpx2", "httpcore2", "pytest_vitabench")
#: Shorter strings are not treated as secrets (placeholder keys such as ``not-needed`` are not secret
#: either, and replacing short strings would mangle ordinary text).
MIN_SECRET_CHARS = 8

# A credential after the scheme word has a digit or a base64/key punctuation mark, so prose ("Basic usage")
# is left alone.
_AUTH_SCHEME = re.compile(r"(?i)\b(bearer|basic)(\s+|%20)(?=[A-Za-z0-9._~+/=\-]*[0-9+/=_\-])[A-Za-z0-9._~+/=\-]{6,}")
_HEADER_VALUE = re.compile(
    r"(?i)((?:proxy-)?authorization|x-api-key|api-key|api_key|apikey)(['\"]?\s*[:=,]\s*\(?b?['\"]?)"
    r"[^'\"\s,})\]]+")
_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.\-]*://)[^/@\s'\"]+@")

_secrets: set[str] = set()
_lock = threading.Lock()
_installed = False


class CredentialsInURL(ValueError):
    """An endpoint URL carries credentials; the message names the URL with them redacted."""


def check_base_url(url: str | None, what: str = "the base URL (--vita-base-url or $OPENAI_BASE_URL)") -> None:
    """Refuse (:class:`CredentialsInURL`) a URL with user-info or a credential-like query parameter."""
    if not url:
        return
    if "," in url:  # several endpoints of one model: each is checked
        for one in url.split(","):
            check_base_url(one.strip(), what)
        return
    parts = urlsplit(url if "//" in url else f"//{url}")
    secret_params = [name for name, _ in parse_qsl(parts.query, keep_blank_values=True)
                     if name.lower() in SECRET_QUERY_KEYS]
    if parts.username is None and parts.password is None and "@" not in parts.netloc and not secret_params:
        return
    shown = redact_url(url)
    where = "user name and password" if "@" in parts.netloc else f"query parameter(s) {', '.join(secret_params)}"
    raise CredentialsInURL(
        f"{what} carries credentials ({where}): {shown}. They would be sent and logged in place of the API "
        "key; remove them from the URL and put the key in the environment variable named by "
        "--vita-api-key-env (default OPENAI_API_KEY)")


def redact_url(url: str) -> str:
    """``url`` with its user-info and every query value replaced by ``***``."""
    parts = urlsplit(url if "//" in url else f"//{url}")
    netloc = parts.netloc
    if "@" in netloc:
        netloc = "***@" + netloc.rsplit("@", 1)[1]
    query = "&".join(f"{name}=***" for name, _ in parse_qsl(parts.query, keep_blank_values=True))
    return parts._replace(netloc=netloc, query=query).geturl().removeprefix("//")


def register_secret(secret: str | None) -> None:
    """Add a secret (an API key) that :func:`redact` replaces wherever it appears."""
    if secret and len(secret) >= MIN_SECRET_CHARS:
        with _lock:
            _secrets.add(secret)


def redact(text: str, *secrets: str) -> str:
    """``text`` without registered or given secrets, auth-scheme credentials, key headers or URL user-info."""
    for secret in (*secrets, *_secrets):
        if secret and len(secret) >= MIN_SECRET_CHARS and secret in text:
            text = text.replace(secret, "***")
    text = _AUTH_SCHEME.sub(lambda m: f"{m.group(1)}{m.group(2)}***", text)
    text = _HEADER_VALUE.sub(lambda m: f"{m.group(1)}{m.group(2)}***", text)
    return _USERINFO.sub(lambda m: f"{m.group(1)}***@", text)


def scrub_payload(payload: dict[str, Any]) -> dict[str, Any]:
    """``payload`` (an answer about to be returned and cached) without any registered secret in its text.

    Only exact secrets are replaced here: the patterns of :func:`redact` could alter a model's real answer.
    """
    if not _secrets:
        return payload
    text = json.dumps(payload, ensure_ascii=False)
    found = [secret for secret in _secrets if secret in text]
    if not found:
        return payload
    for secret in found:
        text = text.replace(json.dumps(secret, ensure_ascii=False)[1:-1], "***")
    return json.loads(text)


def install_log_redaction() -> None:
    """Redact every record of :data:`REDACTED_LOGGERS` (and their children) as it is created. Idempotent.

    A record factory rather than a filter: logger filters do not apply to records of child loggers
    (``openai._base_client``, ``httpcore.http11``), and handler filters would miss handlers added later.
    """
    global _installed
    with _lock:
        if _installed:
            return
        previous = logging.getLogRecordFactory()

        def factory(*args: object, **kwargs: object) -> logging.LogRecord:
            record = previous(*args, **kwargs)
            if record.name.startswith(REDACTED_LOGGERS):
                try:
                    message = record.getMessage()
                except Exception:  # a malformed format string is the logging module's to report
                    return record
                clean = redact(message)
                if clean != message:
                    record.msg, record.args = clean, ()
            return record

        logging.setLogRecordFactory(factory)
        _installed = True

