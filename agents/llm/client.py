"""One place where requests go to a model: litellm, behind a cache, retries and accounting.

litellm speaks to every provider (and to local OpenAI-compatible servers through `api_base`),
but it is slow to import (about 3 s), so it is imported on the first request only. Its cost
map is read from the local copy (LITELLM_LOCAL_MODEL_COST_MAP) so nothing is fetched at import.
Transient failures (rate limits, timeouts, connection errors, 5xx) are retried with exponential
backoff; anything else fails at once with a message that never contains a key.
"""
from __future__ import annotations

import os
import random
import threading
import time
from dataclasses import dataclass

from .cache import DiskCache, request_key
from .redact import redact

_SLOTS: dict[int, threading.BoundedSemaphore] = {}
_SLOTS_LOCK = threading.Lock()


def _slots(limit: int) -> threading.BoundedSemaphore:
    with _SLOTS_LOCK:
        if limit not in _SLOTS:
            _SLOTS[limit] = threading.BoundedSemaphore(limit)
        return _SLOTS[limit]


class ModelCallError(Exception):
    """A request that failed for good (after retries, or at once when retrying cannot help)."""


@dataclass
class Completion:
    text: str
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float
    cached: bool
    requests: int  # requests that reached the provider, retries included
    cost_known: bool = True


def _litellm():
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    litellm.telemetry = False
    litellm.suppress_debug_info = True
    return litellm


def _transient(litellm, exc: Exception) -> bool:
    kinds = tuple(getattr(litellm, name) for name in ("RateLimitError", "Timeout", "APIConnectionError", "ServiceUnavailableError",
                                                       "InternalServerError") if hasattr(litellm, name))
    if isinstance(exc, kinds):
        return True
    status = getattr(exc, "status_code", None)
    return isinstance(status, int) and (status == 429 or status >= 500)


class Client:
    """Chat completions with caching, bounded concurrency, retries and cost accounting."""

    def __init__(self, model: str, api_base: str | None = None, api_key: str | None = None, cache: DiskCache | None | bool = None,
                 timeout: float = 120.0, max_retries: int = 5, backoff: float = 1.0, max_backoff: float = 60.0,
                 concurrency: int = 8, params: dict | None = None):
        self.model, self.api_base, self._api_key = model, api_base, api_key
        self.cache = DiskCache() if cache is None or cache is True else (cache or None)
        self.timeout, self.max_retries = timeout, max_retries
        self.backoff, self.max_backoff = backoff, max_backoff
        self.slots = _slots(max(1, int(concurrency)))
        self.params = dict(params or {})

    def complete(self, messages: list[dict]) -> Completion:
        key = request_key(self.model, messages, self.params)  # where it is served from is not part of the request
        if self.cache is not None:
            hit = self.cache.get(key)
            if hit is not None:
                return Completion(hit["text"], hit["prompt_tokens"], hit["completion_tokens"], hit["cost_usd"], True, 0,
                                  hit.get("cost_known", True))
        litellm = _litellm()
        attempts = 0
        while True:
            attempts += 1
            try:
                with self.slots:
                    response = litellm.completion(model=self.model, messages=messages, api_base=self.api_base, api_key=self._api_key,
                                                  timeout=self.timeout, num_retries=0, **self.params)
                break
            except Exception as exc:  # litellm maps every provider's errors onto its own classes
                if attempts > self.max_retries or not _transient(litellm, exc):
                    secrets = [self._api_key] if self._api_key else []
                    raise ModelCallError(redact(f"{type(exc).__name__} after {attempts} attempt(s): {exc}", secrets)) from None
                delay = min(self.max_backoff, self.backoff * 2 ** (attempts - 1))
                time.sleep(delay * (0.5 + random.random() / 2))
        text = response.choices[0].message.content or ""
        usage = getattr(response, "usage", None)
        prompt_tokens = int(getattr(usage, "prompt_tokens", 0) or 0)
        completion_tokens = int(getattr(usage, "completion_tokens", 0) or 0)
        try:
            cost, known = float(litellm.completion_cost(completion_response=response, model=self.model)), True
        except Exception:  # a model missing from the cost map: tokens are still counted
            cost, known = 0.0, False
        result = Completion(text, prompt_tokens, completion_tokens, cost, False, attempts, known)
        if self.cache is not None:
            self.cache.put(key, {"text": text, "prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                                 "cost_usd": cost, "cost_known": known, "model": self.model})
        return result
