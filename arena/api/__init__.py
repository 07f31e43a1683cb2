"""The HTTP JSON API under ``/api/v1/`` (``docs/api.md``): a front end like the command
line and the web pages, over the same application layer (:mod:`arena.app`). It parses a
request, finds the actor from its bearer key, calls the operation and renders the answer
or the refusal as JSON; its OpenAPI description is generated from this code."""
