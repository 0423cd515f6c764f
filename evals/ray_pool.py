"""plan-eval's episodes as Ray tasks, for runs that outgrow one machine (`--backend ray`).

The driver (plan-eval) stays what it is with local workers: it decides the jobs, and it alone
writes episodes.jsonl, in the order episodes finish, so the run folder, the manifest, `--resume`
and the seeds are those of the local backend. Only where an episode runs changes: a batch (one
problem's episodes, as `evals.run.batches` cuts them) becomes a Ray task that yields each line as
soon as its episode ends. The problems travel with the tasks by content (`evals.shipping`), so a
node needs groundplan installed but no checkout.

A node or worker that dies (killed, Ray's memory monitor, a lost node) fails its task; the lines
it yielded before are kept, and what it had not answered is charged and re-queued by the same
rule as the local pool (`evals.pool.charge`): the running episode once, then given up as
`worker-died`. Ray's own retries are off (`max_retries=0`), because a retried task would run its
batch again from the start and the driver would have to drop the lines it already has; here the
driver knows exactly which episodes are missing.

A task first loads what its episodes need in its worker process (`evals.run.start_up`: litellm, for
an LLM agent; once per process, which Ray reuses for later tasks) and yields how long that took,
as (None, seconds), so that no episode's clock counts it and the driver can say it apart.

Tasks in flight are capped at twice the cluster's CPUs, so a run of 16,000 problems does not hand
Ray 16,000 tasks (and their problems) at once, and an interrupted run leaves little to cancel.
"""
from __future__ import annotations

import itertools
import json
import logging
import os
from collections import deque

from groundplan.engine.errors import GroundplanError

from .pool import charge, describe_death

FORWARDED_ENV = ("GROUNDPLAN_CACHE",)  # the LLM reply cache's folder: a shared one, when the driver names it
IN_FLIGHT_PER_CPU = 2
MAX_GROUP = 16  # problems per task, at most
GROUPS_PER_CPU = 4  # a task takes at most 1/(4 x CPUs) of the batches left
WAIT = 1.0  # s between checks of a local instance's health while no line arrives


def _ray():
    try:
        import ray
    except ImportError:
        raise GroundplanError("--backend ray needs Ray: pip install 'groundplan[ray]' (on every node of the cluster)") from None
    return ray


def connect(address: str | None, cpus: int | None):
    """Join the cluster at `address` ('auto': the one `ray start` made on this machine), or start a
    local instance of `cpus` CPUs (`evals.ray_local`). (started by this call, the local instance or None)."""
    ray = _ray()
    if ray.is_initialized():
        return False, None
    # absolute: a worker's folder is not this one
    env = {name: os.path.abspath(os.environ[name]) for name in FORWARDED_ENV if os.environ.get(name)}
    options = dict(logging_level=logging.ERROR, runtime_env={"env_vars": env} if env else None)
    instance = None
    if not address:  # a new instance, never a cluster that RAY_ADDRESS or an earlier `ray start` names
        from .ray_local import LocalRay

        instance = LocalRay(cpus)
        target = instance.start()
        _read_token_again()
    try:
        ray.init(address=target if instance else address, **options)
    except (ConnectionError, RuntimeError, ValueError, TimeoutError, ray.exceptions.RayError) as exc:
        if instance:
            instance.stop(keep_logs=True)
        where = f"the Ray cluster at {address}" if address else "a local Ray instance"
        hint = ("start one with `ray start --head` on its head node, and give that node's address and port (or 'auto' on that node)"
                if address else "check `ray status`, or run with --backend local")
        if address and os.environ.get("RAY_AUTH_MODE") != "token":  # Ray logs a refused token; its exception does not say
            hint += ("; a cluster that checks tokens needs RAY_AUTH_MODE=token here, and RAY_AUTH_TOKEN set to its token "
                     "(`ray get-auth-token` on its head node) where ~/.ray/auth_token is not that token")
        raise GroundplanError(f"could not connect to {where}: {exc}; {hint}") from None
    return True, instance


def _read_token_again() -> None:
    """Ray reads RAY_AUTH_MODE and the token once, when imported; the local instance's token was
    set after that (`LocalRay.start`)."""
    try:
        from ray._raylet import AuthenticationTokenLoader, Config
    except ImportError:  # a Ray without token authentication
        return
    Config.initialize("")
    AuthenticationTokenLoader.instance().reset_cache()


def _episodes(fingerprint: str, items: list, problems: dict, domains: dict, threads: int):
    """A Ray task (a generator): (None, seconds) when this worker process had to start up (see the
    module docstring), then the (index, line) of each of `items` as its episode ends."""
    from . import shipping
    from .run import run_job, start_up

    shipping.check_fingerprint(fingerprint)
    wanted = {key: ref for key, ref in domains.items() if not shipping.has_domain(key)}
    fetched = {}
    if wanted:
        import ray

        fetched = dict(zip(wanted, ray.get(list(wanted.values()))))
    shipping.receive(problems, fetched)
    took = start_up([job[1] for _, job in items])
    if took is not None:
        yield None, took

    def line(job):
        # what episodes.jsonl will hold, as plain data: Ray need not know how to send the agent's own objects
        return json.loads(json.dumps(run_job(job), default=str))

    if threads <= 1 or len(items) == 1:
        for index, job in items:
            yield index, line(job)
        return
    from concurrent.futures import ThreadPoolExecutor, as_completed

    with ThreadPoolExecutor(min(threads, len(items))) as pool:
        running = {pool.submit(line, job): index for index, job in items}
        for future in as_completed(running):
            yield running[future], future.result()


class RayPool:
    """Like `evals.pool.Pool` (`run(batches)` yields every job's line as it finishes), on Ray.

    `local(job)` runs a job in the driver: for problems that could not be shipped (unreadable,
    no domain), whose episodes fail at loading with the local backend's own message."""

    def __init__(self, key, died, threads: int = 1, address: str | None = None, cpus: int | None = None, say=None,
                 local=None):
        self.key, self.died, self.local = key, died, local
        self.threads, self.address, self.cpus = max(1, threads), address, cpus
        self.say = say or (lambda text: None)
        self.deaths: dict = {}
        self.startup: list[float] = []  # the seconds each worker process took to start up (evals.run.start_up)

    def run(self, batches):
        from . import shipping

        ray = _ray()
        refs = list(dict.fromkeys(job[0] for batch in batches for job in batch))
        problems, domains = shipping.sources(refs)
        here = [[job] for batch in batches for job in batch if job[0] not in problems]
        remote = [batch for batch in ([job for job in batch if job[0] in problems] for batch in batches) if batch]
        for batch in here:
            yield self.local(batch[0])
        if not remote:
            return
        started, instance = connect(self.address, self.cpus)
        inflight: dict = {}
        failed = False
        try:
            task = ray.remote(num_cpus=1, max_retries=0)(_episodes)
            fingerprint = shipping.code_fingerprint()
            stored = {digest: ray.put(source) for digest, source in domains.items()}
            cpus = int(ray.cluster_resources().get("CPU", 1))
            cap = max(2, IN_FLIGHT_PER_CPU * cpus)
            numbered = itertools.count()  # an item's number is unique in the run: batches are joined
            queue = deque([(next(numbered), job) for job in batch] for batch in remote)
            while queue or inflight:
                while queue and len(inflight) < cap:
                    items = _take_group(queue, cpus, self.threads)
                    mine = {job[0]: problems[job[0]] for _, job in items}
                    needed = {source.domain: stored[source.domain] for source in mine.values()}
                    inflight[task.remote(fingerprint, [(i, _portable(job)) for i, job in items], mine, needed, self.threads)] = items
                ready, _ = ray.wait(list(inflight), num_returns=1, timeout=WAIT)
                if instance:  # a local instance that ended, or whose workers cannot start, is an error, not a wait
                    instance.check(progressed=bool(ready))
                for generator in ready:
                    yield from self._next(ray, generator, inflight, queue)
        except Exception:
            failed = True
            raise
        finally:
            for generator in inflight:
                try:
                    ray.cancel(generator, force=True)
                except Exception:  # already ended, or a Ray that cannot cancel generators: shutdown ends them
                    pass
            if started:
                ray.shutdown()
            if instance:
                instance.stop(keep_logs=failed)

    def _next(self, ray, generator, inflight: dict, queue: deque):
        """The next line of a task, its end, or its death (then its unanswered episodes are charged)."""
        left = inflight[generator]
        try:
            index, row = ray.get(next(generator))
        except StopIteration:
            del inflight[generator]
            if left:  # ended without answering every job: never expected, but never lose them
                queue.appendleft(left)
            return
        except ray.exceptions.RayError as exc:
            del inflight[generator]
            if not isinstance(exc, _deaths(ray)):
                raise _fatal(exc) from None
            how = _how(exc)
            names = ", ".join(self.key(job) for _, job in left[: 1 if self.threads <= 1 else len(left)])
            self.say(f"a Ray worker {how} while running {names}: {'it runs' if self.threads <= 1 else 'they run'} again "
                     f"(an episode whose worker dies twice is given up)")
            yield from charge(left, self.threads, self.deaths, self.key, self.died, lambda: describe_death(None, how), queue)
            return
        if index is None:  # the task's worker started up before its episodes
            self.startup.append(row)
            return
        inflight[generator] = [item for item in left if item[0] != index]
        yield row


def _take_group(queue: deque, cpus: int, threads: int) -> list:
    """The next task's items: several batches joined, a share of what is left (guided
    self-scheduling: large tasks first, small ones at the end, so the last CPUs finish together),
    since a Ray task costs a few milliseconds, as much as a whole PPNL episode. One batch with
    threads, where every unanswered episode of a dead task is charged with its death."""
    size = 1 if threads > 1 else max(1, min(MAX_GROUP, len(queue) // (GROUPS_PER_CPU * max(1, cpus))))
    items = []
    for _ in range(min(size, len(queue))):
        items += queue.popleft()
    return items


def _deaths(ray) -> tuple:
    """Ray's errors that mean a worker or node died under a task: its episodes run again. Any
    other error (the task's own, a node that cannot unpickle it) would fail on every node alike."""
    errors = ray.exceptions
    return (errors.WorkerCrashedError, errors.OutOfMemoryError, errors.NodeDiedError, errors.LocalRayletDiedError,
            errors.ObjectLostError, errors.RaySystemError)


def _fatal(exc) -> GroundplanError:
    """The run's end, for an error no re-run mends, said as the task's own error where it has one."""
    from .shipping import ShippingError

    cause = getattr(exc, "cause", None)
    if isinstance(cause, ShippingError):
        return ShippingError(str(cause))
    what = f"{type(cause).__name__}: {cause}" if cause is not None else f"{type(exc).__name__}: {str(exc).strip()[:500]}"
    return GroundplanError(f"a Ray task of this run failed, which a re-run would not mend ({what}); every node must have "
                           "groundplan and its dependencies installed, the same version as here. Finished episodes are "
                           "kept: fix the cause, then run again with --resume")


def _how(exc) -> str:
    """How a task's worker ended, in the words `describe_death` puts after 'it'."""
    ray = _ray()
    errors = ray.exceptions
    if isinstance(exc, errors.OutOfMemoryError):
        return "was killed by Ray's memory monitor (the node ran short of memory)"
    if isinstance(exc, (errors.NodeDiedError, errors.LocalRayletDiedError)):
        return "was lost with its node"
    if isinstance(exc, errors.WorkerCrashedError):
        return "died (killed, or crashed)"
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"failed ({type(exc).__name__}: {first[:200]})"


def _portable(job: tuple) -> tuple:
    """The job as a node sees it: the replay agent's plans by absolute path (a worker's folder is
    not the driver's; on a cluster the path must be on storage every node mounts)."""
    ref, spec, *rest = job  # settings, and the sample when there is one
    plans = dict(spec.options).get("plans")
    if plans and not os.path.isabs(plans):
        import dataclasses

        options = tuple((k, os.path.abspath(v) if k == "plans" else v) for k, v in spec.options)
        spec = dataclasses.replace(spec, options=options)
    return (ref, spec, *rest)
