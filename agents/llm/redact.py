"""Keep API keys out of logs, trajectories and error messages."""
from __future__ import annotations

import os
import re

_KEYS = [  # whole match is the secret
    re.compile(r"\b(?:sk|pk|rk)-[A-Za-z0-9_\-]{8,}"),  # OpenAI / Anthropic style
    re.compile(r"\bAIza[0-9A-Za-z_\-]{20,}"),  # Google
]
_AFTER = [  # group 1 is the label to keep, the rest the secret
    re.compile(r"(?i)(bearer\s+)[A-Za-z0-9._\-]{8,}"),
    re.compile(r"(?i)((?:api[_-]?key|authorization|x-api-key)['\"]?\s*[:=]\s*['\"]?)[^'\"\s,}]{6,}"),
]


def _secret_values() -> list[str]:
    names = [k for k in os.environ if any(w in k.upper() for w in ("KEY", "TOKEN", "SECRET", "PASSWORD"))]
    return sorted({os.environ[k] for k in names if len(os.environ[k]) >= 8}, key=len, reverse=True)


def redact(text: str, extra: list[str] | None = None) -> str:
    """`text` with every known secret replaced by '[redacted]'."""
    if not text:
        return text
    for secret in (extra or []) + _secret_values():
        if secret and len(secret) >= 6:
            text = text.replace(secret, "[redacted]")
    for pattern in _KEYS:
        text = pattern.sub("[redacted]", text)
    for pattern in _AFTER:
        text = pattern.sub(lambda m: m.group(1) + "[redacted]", text)
    return text
