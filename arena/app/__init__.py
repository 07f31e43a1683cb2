"""The application layer (docs/architecture.md, decision 14): every operation a user can
ask for, as one function that takes who asks (an :class:`~arena.app.actors.Actor`) and
checks what they may do before it touches anything. The front ends (the command line in
``arena.commands``, the web pages in ``arena.web``, the API in ``arena.api``) parse, call
and render; this package imports none of them.

``actors``: who asks, how a key names them, and the rule of who may do what
(``docs/api.md``); ``bots``: submitting and retiring bots; ``tournaments``: creating,
retrying, cancelling; ``ladders``: starting, stopping, withdrawing and joining;
``ratings``: recomputing; ``users``: users and their keys; ``limits``: writes per hour;
``reads`` and ``matches``: what anyone may read, as the JSON the commands print and the
API answers; ``pages``: what the web pages show; ``replay``: a stored match step by step.
"""
