"""The Celery app (docs/architecture.md, decision 6): Redis as the broker, no result backend, and
the settings every task of the platform shares.

Postgres is the source of truth; a task is only a nudge to look at it. So tasks are
acknowledged late (a task whose worker died is delivered again, :data:`VISIBILITY_S`
after it was taken), rejected on worker loss, prefetched one at a time, and their results
are not stored. The broker's keys carry the platform's prefix (``ARENA_REDIS_PREFIX``).
"""

from __future__ import annotations

from celery import Celery

from referee import settings
from worker.broker import key_prefix

#: The queue the platform's tasks go to.
QUEUE = "arena"
#: The queue of the matches that seat a remote bot, taken only by the workers that take
#: remote bots (``arena worker --remote``), beside :data:`QUEUE`.
REMOTE_QUEUE = "arena.remote"
#: How long a taken, unacknowledged task waits before the broker hands it out again (its
#: worker died). A match's own lease (:mod:`worker.tasks`) is much shorter: the scheduler
#: re-queues a vanished worker's match long before this.
VISIBILITY_S = 900
#: Hard and soft time limits of a task, seconds (a drain task stops claiming well before).
TIME_LIMIT_S = 900
SOFT_TIME_LIMIT_S = 840


def celery_url(url: str) -> str:
    """The broker URL in Celery's (kombu's) spelling: ``unix:///path`` becomes
    ``redis+socket:///path``."""
    if url.startswith("unix://"):
        return "redis+socket://" + url.removeprefix("unix://")
    return url


#: The platform's Celery app; :func:`configure` points it at a broker before first use.
app = Celery("arena", set_as_current=False)


def configure(broker_url: str | None = None, prefix: str | None = None) -> Celery:
    """Point :data:`app` at ``broker_url`` (default ``ARENA_REDIS_URL``) with the
    platform's settings, before it sends or takes its first task; returns it."""
    url = broker_url or settings.load().redis_url or "redis://127.0.0.1:6379/0"
    prefix = key_prefix() if prefix is None else prefix
    app.conf.update(
        broker_url=celery_url(url),
        broker_transport_options={
            "global_keyprefix": prefix,
            "visibility_timeout": VISIBILITY_S,
        },
        broker_connection_retry_on_startup=True,
        task_default_queue=QUEUE,
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        task_ignore_result=True,
        task_time_limit=TIME_LIMIT_S,
        task_soft_time_limit=SOFT_TIME_LIMIT_S,
        task_serializer="json",
        accept_content=["json"],
        worker_prefetch_multiplier=1,
        worker_hijack_root_logger=False,
        worker_redirect_stdouts=False,
        worker_send_task_events=False,
        timezone="UTC",
    )
    # Connections made under earlier settings keep them (a process that points the app at
    # another broker or prefix, as each test does): drop them, so the next task goes to
    # the broker and prefix set here.
    if app._pool is not None:
        app._pool.force_close_all()
        app._pool = None
    app.amqp._producer_pool = None
    return app
