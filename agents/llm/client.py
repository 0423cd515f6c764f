"""One place where requests go to a model: litellm, behind a cache, retries and accounting.

litellm speaks to every provider (and to local OpenAI-compatible servers through `api_base`),
but it is slow to import (5 s on a 2-core machine, several times that on a busy one), so it is
imported where a request is made, never when this module is: a run without an LLM agent never
pays for it. A run with one pays once per process, before its first episode (`start_up`, which
plan-eval calls in each of its workers), so that no episode's clock counts it. Its price list (cost
map) is read from the copy installed with litellm (LITELLM_LOCAL_MODEL_COST_MAP=True, unless the
user set the variable: `_cost_map_setting`), so nothing is fetched at import: offline, litellm
would otherwise wait for GitHub to fail before falling back to that same copy (and retry it in the
background), and a run's prices would depend on the day it ran rather than on the litellm version.
Transient failures (rate limits, timeouts, connection errors, 5xx) are retried with exponential
backoff; anything else fails at once with a message that never contains a key. Nor does a reply: a key it
repeats is redacted before the reply is cached, returned, kept or sent back to the model.

A request waits at most `timeout` seconds (60) in all, from connecting to the last byte of the
reply (`_bounded`: the HTTP client's own timeouts bound each read, and a server that sends a byte a
second would never trip them), and is retried at most `max_retries` times (4), so a server that
hangs or dribbles costs an episode about five minutes, not more. A caller with a deadline
(the episode's wall-clock budget) passes it: each request then waits no longer than the time
left, no backoff sleeps past it, and once it has passed the call ends with DeadlineReached.
A call that fails for good says how many requests it made (`ModelCallError.requests`), since
they were made, and may have been paid for, even though no reply came back.

A request carries the episode's seed (`seed`): it is part of the cache key (cache.py), and it is
sent to the provider as the `seed` parameter where litellm says the provider takes one (OpenAI and
OpenAI-compatible servers, vLLM, Ollama, Mistral, Groq, Gemini, ...; not Anthropic, which would
refuse it), so a provider that honours it samples reproducibly. What is sent is a 31-bit number
drawn from the episode's seed and the request's repeat number (a re-prompt must not be told the
same seed as the request it repeats); `send_seed=False` (plan-eval --no-llm-seed) sends none, for a
server that refuses the field. A price litellm does not know is said (`Completion.cost_known`),
never counted as $0.
"""
from __future__ import annotations

import os
import random
import sys
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
    """A request that failed for good (after retries, or at once when retrying cannot help).
    `requests` counts the attempts made, so the episode accounts them although nothing came back."""

    def __init__(self, message: str, requests: int = 0):
        super().__init__(message)
        self.requests = requests


class DeadlineReached(ModelCallError, TimeoutError):
    """The caller's deadline passed before a reply came: there is no time left to ask again."""


@dataclass
class Completion:
    text: str
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float
    cached: bool
    requests: int  # requests that reached the provider, retries included
    cost_known: bool = True


COST_MAP_VARIABLE = "LITELLM_LOCAL_MODEL_COST_MAP"


def _cost_map_setting() -> str:
    """Have litellm read its price list from its installed package, not fetch it (litellm reads the
    variable once, when it is imported). A value the user set is kept: LITELLM_LOCAL_MODEL_COST_MAP=False
    makes litellm fetch the current list from GitHub at import (offline, it waits for the fetch to fail
    before it falls back to its installed copy)."""
    return os.environ.setdefault(COST_MAP_VARIABLE, "True")


def _litellm():
    _cost_map_setting()
    import litellm

    litellm.telemetry = False
    litellm.suppress_debug_info = True
    return litellm


_STARTED: set = set()  # the models whose request path start_up has loaded in this process
_START_LOCK = threading.Lock()


def start_up(models=()) -> float | None:
    """Load litellm in this process before its first episode: import it and send one request per
    model through its request path offline (litellm's documented `mock_response`, which returns
    without connecting anywhere), pricing the reply as a real one is priced. What the first real
    request would otherwise spend, inside an episode's clock (about 5 s of import and 0.3 s of
    modules litellm loads on its first call), is spent here instead.

    The seconds it took, or None when there was nothing left to load (litellm and every model's path
    were loaded before in this process). Never raises: a model litellm cannot place or price fails
    at its first real request, with that request's own error, as it would have without this."""
    with _START_LOCK:
        wanted = [model for model in dict.fromkeys(models) if model not in _STARTED]
        if "litellm" in sys.modules and not wanted:
            return None
        began = time.perf_counter()
        try:
            litellm = _litellm()
        except Exception:  # not installed, or broken: each request says so, in its episode
            return None
        for model in wanted:
            _STARTED.add(model)
            try:
                reply = litellm.completion(model=model, messages=[{"role": "user", "content": "start-up"}], mock_response="ready",
                                           api_key="start-up", num_retries=0)
                litellm.completion_cost(completion_response=reply, model=model)
            except Exception:  # (see the docstring)
                pass
            Client(model, cache=False)._takes_seed(litellm)  # the provider's parameter tables (never raises)
        return time.perf_counter() - began


def _transient(litellm, exc: Exception) -> bool:
    if isinstance(exc, Overdue):
        return True
    kinds = tuple(getattr(litellm, name) for name in ("RateLimitError", "Timeout", "APIConnectionError", "ServiceUnavailableError",
                                                       "InternalServerError") if hasattr(litellm, name))
    if isinstance(exc, kinds):
        return True
    status = getattr(exc, "status_code", None)
    return isinstance(status, int) and (status == 429 or status >= 500)


class Client:
    """Chat completions with caching, bounded concurrency, retries and cost accounting."""

    def __init__(self, model: str, api_base: str | None = None, api_key: str | None = None, cache: DiskCache | None | bool = None,
                 timeout: float = 60.0, max_retries: int = 4, backoff: float = 1.0, max_backoff: float = 60.0,
                 concurrency: int = 8, params: dict | None = None, cache_mode: str = "on", send_seed: bool = True):
        from .cache import MODES, check_mode

        self.model, self.api_base, self._api_key = model, api_base, api_key
        self.cache = DiskCache() if cache is None or cache is True else (cache or None)
        self.reads, self.writes, self.replaces = MODES[check_mode(cache_mode)]
        self.send_seed = bool(send_seed)
        self._seeded: bool | None = None  # does the provider take a seed (asked of litellm once)
        self.timeout, self.max_retries = float(timeout), int(max_retries)
        self.backoff, self.max_backoff = backoff, max_backoff
        self.slots = _slots(max(1, int(concurrency)))
        self.params = dict(params or {})

    def key(self, messages: list[dict], repeat: int = 0, seed: int | None = None) -> str:
        """The cache key of a request (where it is served from is not part of the request)."""
        return request_key(self.model, messages, self.params, repeat, seed)

    def complete(self, messages: list[dict], repeat: int = 0, deadline: float | None = None, seed: int | None = None) -> Completion:
        """The reply to `messages`. `repeat`: how many times the caller asked the same before (a
        fresh reply each time, see cache.py); `deadline`: a time.monotonic() instant not to pass;
        `seed`: the episode's seed (in the key, and sent where the provider takes one)."""
        key = self.key(messages, repeat, seed)
        if self.cache is not None and self.reads:
            hit = self.cache.get(key)
            if hit is not None:  # (an entry written before replies were redacted is redacted as it is replayed)
                return Completion(redact(hit["text"], self._secrets()), hit["prompt_tokens"], hit["completion_tokens"], hit["cost_usd"], True, 0,
                                  hit.get("cost_known", True))
        litellm = _litellm()
        params = dict(self.params)
        if seed is not None and self._takes_seed(litellm):
            params["seed"] = provider_seed(seed, repeat)
        attempts, last = 0, None
        while True:
            if not self.slots.acquire(timeout=_left(deadline)):  # without a deadline, as long as it takes
                raise self._late(attempts, last)
            try:
                wait = self._wait(deadline, attempts, last)
                attempts += 1
                response = _bounded(wait, lambda: litellm.completion(
                    model=self.model, messages=messages, api_base=self.api_base, api_key=self._api_key, timeout=wait,
                    num_retries=0, **params))
            except DeadlineReached:
                raise
            except Exception as exc:  # litellm maps every provider's errors onto its own classes
                last = exc
            else:
                break
            finally:
                self.slots.release()
            timed_out = isinstance(last, (Overdue, getattr(litellm, "Timeout", Overdue)))
            if _left(deadline) == 0 or (timed_out and wait < self.timeout):  # cut short by the deadline
                raise self._late(attempts, None)  # (what it failed with then is only how it was cut)
            if attempts > self.max_retries or not _transient(litellm, last):
                raise self._failed(attempts, last, timed_out)
            delay = min(self.max_backoff, self.backoff * 2 ** (attempts - 1)) * (0.5 + random.random() / 2)
            left = _left(deadline)
            time.sleep(delay if left is None else min(delay, left))  # never past the deadline
        # a key the reply repeats (a server echoing the request) is stored and replayed nowhere
        text = redact(response.choices[0].message.content or "", self._secrets())
        usage = getattr(response, "usage", None)
        prompt_tokens = int(getattr(usage, "prompt_tokens", 0) or 0)
        completion_tokens = int(getattr(usage, "completion_tokens", 0) or 0)
        try:
            cost, known = float(litellm.completion_cost(completion_response=response, model=self.model)), True
        except Exception:  # a model missing from the cost map: tokens are still counted
            cost, known = 0.0, False
        result = Completion(text, prompt_tokens, completion_tokens, cost, False, attempts, known)
        if self.cache is not None and self.writes:
            self.cache.put(key, {"text": text, "prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                                 "cost_usd": cost, "cost_known": known, "model": self.model}, replace=self.replaces)
        return result

    def _takes_seed(self, litellm) -> bool:
        """Whether to send the seed: asked to, and litellm lists `seed` among the provider's parameters."""
        if not self.send_seed:
            return False
        if self._seeded is None:
            try:
                model, provider, _, _ = litellm.get_llm_provider(self.model, api_base=self.api_base)
                self._seeded = "seed" in (litellm.get_supported_openai_params(model=model, custom_llm_provider=provider) or ())
            except Exception:  # a provider litellm cannot place: send nothing it might refuse
                self._seeded = False
        return self._seeded

    def _wait(self, deadline: float | None, attempts: int, last: Exception | None) -> float:
        """How long the next request may take: the timeout, or less when the deadline is nearer."""
        left = _left(deadline)
        if left is None:
            return self.timeout
        if left <= 0:
            raise self._late(attempts, last)
        return min(self.timeout, left)

    def _secrets(self) -> list[str]:
        return [self._api_key] if self._api_key else []

    def _late(self, attempts: int, last: Exception | None) -> DeadlineReached:
        """`last`: the failure that led to waiting (a request cut at the deadline has none worth telling)."""
        tail = f"; the last one failed with {type(last).__name__}: {last}" if last is not None else ""
        return DeadlineReached(redact(f"the episode's time ran out waiting for a reply from {self.model} "
                                      f"({attempts} request(s) made{tail})", self._secrets()), attempts)

    def _failed(self, attempts: int, exc: Exception, timed_out: bool) -> ModelCallError:
        if timed_out:
            message = (f"Timeout: {self.model} did not answer within {self.timeout:g} s, {attempts} time(s) "
                       "(the request timeout and retries; plan-eval: --llm-timeout, --llm-retries)")
        else:
            message = f"{type(exc).__name__} after {attempts} attempt(s): {exc}"
        return ModelCallError(redact(message, self._secrets()), attempts)


class Overdue(TimeoutError):
    """A request that had not ended, body included, when its time was up (see _bounded)."""


_WATCHED = threading.local()  # in a request's worker thread: the sockets it connected
_HOOKED = False


def _audit(event: str, args) -> None:
    if event == "socket.connect":
        sockets = getattr(_WATCHED, "sockets", None)
        if sockets is not None:
            sockets.append(args[0])


def _bounded(seconds: float, request):
    """request()'s result, or Overdue once `seconds` have passed, whatever the server does.

    An HTTP client's timeouts bound each read, not the request: a server that sends a byte a
    second never trips them. So the request runs in a worker thread that is waited for at most
    `seconds`; when it is late, the sockets that thread connected (seen through the interpreter's
    `socket.connect` audit event) are shut, which ends its blocked read at once, and the thread is
    left to end by itself. A request sent on a pooled connection opened earlier is only abandoned:
    its thread ends with the server's next silence longer than the per-read timeout."""
    global _HOOKED
    with _SLOTS_LOCK:
        if not _HOOKED:
            sys.addaudithook(_audit)
            _HOOKED = True
    import contextvars

    box: dict = {}
    sockets: list = []
    context = contextvars.copy_context()  # the caller's context variables go with the request

    def work():
        _WATCHED.sockets = sockets
        try:
            box["result"] = request()
        except BaseException as exc:  # handed to the caller
            box["error"] = exc
        finally:
            _WATCHED.sockets = None

    worker = threading.Thread(target=context.run, args=(work,), name="groundplan-llm-request", daemon=True)
    worker.start()
    worker.join(seconds)
    if worker.is_alive():
        import socket

        for sock in list(sockets):
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass  # already closed
        worker.join(0.05)
        if "result" not in box:  # (a reply that came whole just then is kept: it was paid for)
            raise Overdue(f"no whole reply within {seconds:g} s")
    if "error" in box:
        raise box["error"]
    return box["result"]


def provider_seed(seed: int, repeat: int = 0) -> int:
    """The `seed` sent to a provider: 31 bits (every provider's integer holds it) drawn from the
    episode's seed and the request's repeat number."""
    import hashlib

    digest = hashlib.sha256(f"{int(seed)}|{int(repeat)}".encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF


def _left(deadline: float | None) -> float | None:
    """Seconds until `deadline` (never below 0), or None without one."""
    return None if deadline is None else max(0.0, deadline - time.monotonic())
