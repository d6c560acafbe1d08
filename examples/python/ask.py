#!/usr/bin/env python3
"""ask.py: ask asof a question as of a day, and make a digest, from Python.

asof's API is Temporal (docs/api.md): this client starts the Ask and Digest workflows on the
asof-default task queue with plain JSON inputs (schemas/jsonschema/ask-input.json,
digest-input.json) and reads their results (answer.json, digest-result.json). It imports
nothing from asof; it needs only the Temporal Python SDK (requirements.txt).

    python ask.py --address 127.0.0.1:7233 --index demo --as-of 2026-03-31 \
        "central bank key rate" --topic "Bridge=Lindholm bridge delay"

It prints the answer (its summary, which ends with the dated sources it cites), then the
digest: the keys it was written under in the store and each topic's summary. The summaries are
printed as asof wrote them, the form `asof ask` and the digests show. --json prints one JSON
object instead: {"api_version", "answer", "digest", "topics"}.
"""

import argparse
import asyncio
import datetime
import json
import os
import sys
import traceback
import uuid
from datetime import timedelta

from temporalio.client import Client, WorkflowFailureError
from temporalio.exceptions import ApplicationError

# The API version this client was written for (x-asof-api-version in schemas/jsonschema/).
API_VERSION = 1
TASK_QUEUE = "asof-default"


def day(s):
    """The --as-of value checked here, so that a bad date gets a clear message rather than the
    workflow's "unable to decode": a real calendar day YYYY-MM-DD from year 1000 on, as asof
    itself accepts."""
    try:
        d = datetime.date.fromisoformat(s)
    except ValueError:
        d = None
    if d is None or len(s) != 10 or d.year < 1000:
        raise argparse.ArgumentTypeError(f"{s!r} is not a day: use YYYY-MM-DD, e.g. 2026-03-31 (year 1000 or later)")
    return s


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("query", help="the question, asked as of --as-of")
    p.add_argument("--address", default=os.environ.get("ASOF_TEMPORAL", "127.0.0.1:7233"),
                   help="Temporal frontend host:port (asof dev prints it; default $ASOF_TEMPORAL)")
    p.add_argument("--namespace", default=os.environ.get("ASOF_NAMESPACE", "default"))
    p.add_argument("--index", required=True, help="index to ask")
    p.add_argument("--as-of", required=True, type=day,
                   help="anchor day YYYY-MM-DD: nothing published later is used")
    p.add_argument("--topic", action="append", default=[], metavar="NAME=QUERY",
                   help="a digest topic (repeatable; default: the question itself)")
    p.add_argument("--digest-name", default="pyclient", help="the digest's name (digests/<name>/<day>/)")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    return p.parse_args()


# asof's error types (docs/api.md, "Errors"): none of them is worth a retry.
ASOF_ERRORS = ("InvalidInput", "BadConfiguration", "Mismatch")


def fail(what, err):
    """Print why a workflow failed and exit 1: asof's error type and message when the cause
    chain has one (the workflow wraps what failed in its own words), else the root cause."""
    cause, found = err, None
    while cause is not None:
        if found is None and isinstance(cause, ApplicationError) and cause.type in ASOF_ERRORS:
            found = cause
        if getattr(cause, "cause", None) is None:
            break
        cause = cause.cause
    if found is not None:
        print(f"ask.py: {what} failed: {found.type}: {found.message}", file=sys.stderr)
    else:
        print(f"ask.py: {what} failed: {cause}", file=sys.stderr)
    sys.exit(1)


def written(answer):
    """What an answer says to its reader: the message of an empty answer, if any, then the
    summary (Markdown: its sections and the dated sources it cites)."""
    parts = [s.strip() for s in (answer.get("message"), answer.get("summary")) if s and s.strip()]
    return "\n\n".join(parts)


async def main():
    args = parse_args()
    client = await Client.connect(args.address, namespace=args.namespace)
    as_of = args.as_of + "T00:00:00Z"  # RFC 3339; the day is what counts

    # One workflow id per request: starting the same id again while it runs is refused, and a
    # finished id may be started again (Temporal's default id reuse policy), so a retry of this
    # client after a crash would reattach with client.get_workflow_handle(ask_id) instead.
    ask_id = f"pyclient-ask-{args.index}-{uuid.uuid4().hex[:12]}"
    try:
        answer = await client.execute_workflow(
            "Ask",
            {"index": args.index, "query": args.query, "as_of": as_of},
            id=ask_id, task_queue=TASK_QUEUE, execution_timeout=timedelta(minutes=10),
        )
    except WorkflowFailureError as e:
        fail(f"Ask {ask_id}", e)

    topics = []
    for t in args.topic or [args.query]:
        name, sep, query = t.partition("=")
        topics.append({"name": name, "query": query} if sep else {"name": t[:60], "query": t})
    digest_id = f"pyclient-digest-{args.digest_name}-{uuid.uuid4().hex[:12]}"
    try:
        digest = await client.execute_workflow(
            "Digest",
            {"name": args.digest_name, "index": args.index, "topics": topics, "as_of": as_of},
            id=digest_id, task_queue=TASK_QUEUE, execution_timeout=timedelta(minutes=20),
        )
    except WorkflowFailureError as e:
        fail(f"Digest {digest_id}", e)
    # Each topic was answered by a child Ask whose id is <digest id>-t<NN> (1-based, in input
    # order): its result is the topic's whole answer.
    answers = []
    for i in range(len(topics)):
        handle = client.get_workflow_handle(f"{digest_id}-t{i + 1:02d}")
        try:
            answers.append(await handle.result())
        except WorkflowFailureError as e:
            answers.append({"error": str(e.cause)})

    if args.json:
        print(json.dumps({"api_version": API_VERSION, "answer": answer, "digest": digest, "topics": answers},
                         ensure_ascii=False))
        return
    print(f"# {answer['query']} (as of {answer['as_of'][:10]}, {answer['mode']})\n")
    print(written(answer))
    print(f"\n# Digest {args.digest_name} as of {digest['as_of'][:10]}: {digest['topics']} topics, "
          f"{digest['failed']} failed")
    for k in ("json", "markdown", "html"):
        print(f"  {k:9} {digest['keys'][k]}")
    for t, a in zip(topics, answers):
        print(f"\n## {t['name']}\n")
        print(written(a) or a.get("error", ""))


def run():
    """main's exit status: 0, the code of a sys.exit (argparse's 2, fail's 1), 130 on Ctrl-C, 1
    with the traceback on anything else."""
    try:
        asyncio.run(main())
        return 0
    except SystemExit as e:
        if e.code is None or isinstance(e.code, int):
            return e.code or 0
        print(e.code, file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BaseException:  # noqa: BLE001 - printed, then the process ends with status 1
        traceback.print_exc()
        return 1


if __name__ == "__main__":
    # The process ends with os._exit, after flushing what it printed, not by returning: the
    # Temporal SDK's native (Rust) threads outlive the event loop, and when the interpreter
    # finalizes under them a short-lived client can abort on "PyGILState_Release: thread state
    # ... must be current when releasing" (temporalio/sdk-python#300; seen here in CI after the
    # answer was printed). Nothing is left to clean up: the workflows have finished.
    status = run()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except OSError:  # a closed pipe: nothing more can be said
            status = status or 1
    os._exit(status)
