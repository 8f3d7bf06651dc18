"""A Celery worker that consumes repro.* queues registers as a runner and sends heartbeats.

The heartbeat runs the health check (with the worker's concurrency: memory for that many runs at
once); a failing runner cancels its repro queues (it stops taking work, and says why on the
runners page) and adds them back once healthy.
"""

from __future__ import annotations

import logging
import threading

from celery.signals import worker_ready, worker_shutdown
from django.conf import settings
from django.db import close_old_connections

logger = logging.getLogger(__name__)
_stop = threading.Event()


def _repro_queues(consumer) -> list[str]:
    try:
        names = [queue.name for queue in consumer.task_consumer.queues]
    except AttributeError:
        names = []
    return [name for name in names if name.startswith("repro.")]


def _concurrency(consumer) -> int:
    """How many tasks this worker runs at once: its pool's limit (-c; 1 for the solo pool), or
    the most an autoscaler may grow it to."""
    limit = getattr(getattr(consumer, "pool", None), "limit", None) or 1
    most = getattr(getattr(consumer, "controller", None), "max_concurrency", None) or 0
    return max(int(limit), int(most))


def _beat(app, name: str, queues: list[str], concurrency: int) -> None:
    from kernels_ci.services import runners  # models: this module loads with the Celery app

    while not _stop.wait(settings.KERNELS_CI_HEARTBEAT_S):
        close_old_connections()
        try:
            runner = runners.runner_heartbeat(name=name, concurrency=concurrency)
            if not runner.healthy and runner.consuming:
                for queue in queues:
                    app.control.cancel_consumer(queue, destination=[name])
                runners.runner_set_consuming(name=name, consuming=False)
            elif runner.healthy and not runner.consuming:
                for queue in queues:
                    app.control.add_consumer(queue, destination=[name])
                runners.runner_set_consuming(name=name, consuming=True)
        except Exception:  # a heartbeat must never take the worker down
            logger.exception("runner heartbeat failed")


@worker_ready.connect
def runner_on_ready(sender=None, **kwargs) -> None:
    queues = _repro_queues(sender)
    if not queues:
        return
    from kernels_ci.services import runners  # models: this module loads with the Celery app

    name, concurrency = sender.hostname, _concurrency(sender)
    runner = runners.runner_register(name=name, queues=queues, concurrency=concurrency)
    if not runner.healthy:
        for queue in queues:  # in the consumer's own thread: stop taking work right away
            sender.cancel_task_queue(queue)
        runners.runner_set_consuming(name=name, consuming=False)
    beat = threading.Thread(target=_beat, args=(sender.app, name, queues, concurrency))
    beat.daemon = True
    beat.start()


@worker_shutdown.connect
def runner_on_shutdown(**kwargs) -> None:
    _stop.set()
