#!/usr/bin/env python3
"""Projects the wall time of one stream inflated on P cores from the tasks measured on the
cores we have (bufkit-bench's parallel_tasks: each task's CPU seconds by its thread's clock),
by simulating the real dependency graph of `inflate_parallel` on P cores:

- P workers take, first, chunks lined up and waiting to be resolved; else the next chunk to
  speculate (find a block start, decode marked, then bytes), in order, never more than
  P + P / 2 + 1 chunks ahead of the last one written (the memory bound);
- the writer decodes chunk 0 exactly; then for each chunk in order waits for its speculation,
  finds the 32 KiB after it (the next chunk's window) and hands it to be resolved, or, where it
  did not line up, writes what is pending and decodes the chunk exactly itself; it writes the
  resolved chunks in order as they are done, and decodes the tail;
- the threads share the cores equally while more of them can run than there are cores.

Every task costs on P cores what it cost where it was measured. What the model leaves out: memory bandwidth
(P decoders streaming at once share it: each moves about 1-2 GB/s of input and output against
the tens of GB/s of a socket), frequency (turbo falls as more cores are busy), caches shared
between cores, and the operating system's scheduling. It is checked against the wall time
measured at the cores the tasks were measured on.

Usage: python3 parallel_model.py TASKS.json [TASKS.json...]   (prints a Markdown table)
       python3 parallel_model.py --archive TASKS.json...   (the entries decoded at once, as
       extraction decodes an archive's, against one core decoding them in turn)
       python3 parallel_model.py --smallest CORES RATIO TASKS.json...   (the smallest stream, in
       chunks of the trace, for which CORES cores beat serial decoding by RATIO)"""
import json
import sys

CORES = [2, 4, 8, 16]


def costs(trace):
    """Each kind of task's CPU seconds by chunk, and which chunks' speculation was used."""
    chunks = trace["chunks"]
    cost = {kind: [0.0] * (chunks + 1) for kind in ("speculate", "resolve", "window", "emit", "serial")}
    used = [False] * (chunks + 1)
    for t in trace["tasks"]:
        cost[t["kind"]][t["chunk"]] += t["cpu"]
        if t["kind"] == "window":
            used[t["chunk"]] = True
    return chunks, cost, used


def writer_program(chunks, used, ahead, pending, state):
    """The writer as a generator of steps: ("run", kind, k) or ("wait", predicate)."""
    def emit_front():
        k = pending[0]
        yield ("wait", lambda: k in state["resolved"])
        yield ("run", "emit", k)
        pending.pop(0)
        state["written"] = k + 1

    yield ("run", "serial", 0)
    for k in range(1, chunks):
        while len(pending) + 1 >= ahead:
            yield from emit_front()
        while pending and pending[0] in state["resolved"]:
            yield from emit_front()
        yield ("wait", lambda k=k: k in state["spec_done"])
        if used[k]:
            yield ("run", "window", k)
            state["resolve_queue"].append(k)
            pending.append(k)
        else:
            while pending:
                yield from emit_front()
            yield ("run", "serial", k)
            state["written"] = k + 1
    while pending:
        yield from emit_front()
    yield ("run", "serial", chunks)


class Stream:
    """One stream's decode in the simulation: its writer and its workers' queue."""

    def __init__(self, trace, workers):
        self.chunks, self.cost, used = costs(trace)
        self.workers, self.ahead = workers, workers + workers // 2 + 1
        self.state = {"written": 1, "spec_done": set(), "resolved": set(), "resolve_queue": []}
        self.program = writer_program(self.chunks, used, self.ahead, [], self.state)
        self.next_spec = 1
        self.running = []  # [remaining seconds, kind, chunk] of each busy worker
        self.writer = None  # [remaining seconds] of the writer's running step
        self.waiting = None
        self.done = False

    def advance_writer(self):
        """Runs the writer's steps until it is busy, blocked or done."""
        while self.writer is None and not self.done:
            if self.waiting is not None:
                if not self.waiting():
                    return
                self.waiting = None
            try:
                step = next(self.program)
            except StopIteration:
                self.done = True
                return
            if step[0] == "wait":
                self.waiting = step[1]
            else:
                self.writer = [self.cost[step[1]][step[2]]]

    def take_jobs(self):
        """Idle workers take jobs: resolving first, then speculating within the bound."""
        state = self.state
        while len(self.running) < self.workers:
            if state["resolve_queue"]:
                k = state["resolve_queue"].pop(0)
                self.running.append([self.cost["resolve"][k], "resolve", k])
            elif self.next_spec < self.chunks and self.next_spec < state["written"] + self.ahead:
                self.running.append([self.cost["speculate"][self.next_spec], "speculate", self.next_spec])
                self.next_spec += 1
            else:
                return

    def busy(self):
        return [w[0] for w in self.running] + ([self.writer[0]] if self.writer is not None else [])

    def spend(self, seconds):
        if self.writer is not None:
            self.writer[0] -= seconds
            if self.writer[0] <= 1e-12:
                self.writer = None
        for w in list(self.running):
            w[0] -= seconds
            if w[0] <= 1e-12:
                self.running.remove(w)
                (self.state["spec_done"] if w[1] == "speculate" else self.state["resolved"]).add(w[2])


def simulate_many(traces, cores, workers):
    """The wall time of decoding every stream of `traces` at once, each with its writer and
    `workers` workers, all their threads sharing `cores` cores."""
    streams = [Stream(trace, workers) for trace in traces]
    t = 0.0
    while True:
        for s in streams:
            s.advance_writer()
            s.take_jobs()
        busy = [b for s in streams for b in s.busy()]
        if not busy:
            if all(s.done for s in streams):
                return t
            raise RuntimeError("the model is stuck")
        rate = min(1.0, cores / len(busy))
        dt = min(busy) / rate
        t += dt
        for s in streams:
            s.spend(dt * rate)


def simulate(trace, cores):
    """One stream's wall time on `cores` cores, with as many workers."""
    return simulate_many([trace], cores, cores)


def truncated(trace, n):
    """The trace of a stream made of the first `n` chunks alone: its serial decoding costs its
    share of the whole stream's."""
    out = dict(trace, chunks=n, tasks=[t for t in trace["tasks"] if t["chunk"] < n])
    out["serial_cpu"] = trace["serial_cpu"] * n / trace["chunks"]
    return out


def smallest(trace, cores, at_least):
    """The fewest chunks from which the model on `cores` cores beats serial decoding by `at_least`."""
    for n in range(2, trace["chunks"] + 1):
        t = truncated(trace, n)
        if t["serial_cpu"] / simulate(t, cores) >= at_least:
            return n
    return None


MIN_CORES = 4  # asset_extract::PARALLEL_MIN_CORES


def serial_trace(trace):
    """The trace of the stream decoded serially: one task, the writer's, of its serial CPU."""
    return dict(trace, chunks=1, tasks=[{"kind": "serial", "chunk": 0, "cpu": trace["serial_cpu"]}])


def archive(paths):
    """Entries extracted at once, as extraction shares the cores among them: each entry's
    writer is an extraction worker; with P cores and E entries, the rule sees P - 2 (E - 1) cores
    for each (another entry on one core does the work of two cores of chunked decoding), and
    cuts each into chunks, P / E decoding threads each (two at least), where that is at least 4,
    else inflates each on one core. Against one core decoding them in turn; and beside the entries inflated
    side by side, one core each, whatever P (what extraction did before the rule)."""
    traces = []
    for path in paths:
        with open(path) as f:
            traces.append(json.load(f))
    serial = sum(t["serial_cpu"] for t in traces)
    names = " + ".join(f"{t['entry']} ({t['size'] >> 20} MiB)" for t in traces)
    print("| archive | how | " + " | ".join(f"{p} cores" for p in CORES) + " |")
    print("|---|---|" + "---:|" * len(CORES))
    one_each, by_rule = [], []
    for p in CORES:
        wall = simulate_many([serial_trace(t) for t in traces], p, 1)
        one_each.append(f"{wall * 1000:.0f} ms ({serial / wall:.2f}×)")
        seen = p - 2 * (len(traces) - 1)
        if seen >= MIN_CORES:
            wall = simulate_many(traces, p, max(2, -(-p // len(traces))))
        by_rule.append(f"{wall * 1000:.0f} ms ({serial / wall:.2f}×)")
    print(f"| {names}: {serial * 1000:.0f} ms on one core | one core each | " + " | ".join(one_each) + " |")
    print(f"| | by the rule | " + " | ".join(by_rule) + " |")
    cells = []
    for p in CORES:
        wall = simulate_many(traces, p, max(2, -(-p // len(traces))))
        cells.append(f"{wall * 1000:.0f} ms ({serial / wall:.2f}×)")
    print(f"| | every entry on several cores | " + " | ".join(cells) + " |")


def main():
    if sys.argv[1] == "--archive":
        archive(sys.argv[2:])
        return
    if sys.argv[1] == "--smallest":
        cores, at_least = int(sys.argv[2]), float(sys.argv[3])
        for path in sys.argv[4:]:
            with open(path) as f:
                trace = json.load(f)
            n = smallest(trace, cores, at_least)
            chunk = trace["size"] / trace["chunks"]
            print(f"{trace['entry']}: {n} chunks ({n * chunk / 2**20:.0f} MiB) on {cores} cores for {at_least}x"
                  if n else f"{trace['entry']}: never {at_least}x on {cores} cores")
        return
    print("| stream | serial CPU | parallel CPU (× serial) | measured wall, 2 cores | model, 2 cores | "
          + " | ".join(f"model, {p} cores" for p in CORES[1:]) + " |")
    print("|---|---:|---:|---:|---:|" + "---:|" * (len(CORES) - 1))
    for path in sys.argv[1:]:
        with open(path) as f:
            trace = json.load(f)
        serial = trace["serial_cpu"]
        walls = {p: simulate(trace, p) for p in CORES}
        cells = [f"{walls[p] * 1000:.0f} ms ({serial / walls[p]:.2f}×)" for p in CORES[1:]]
        print(f"| {trace['entry']} ({trace['size'] >> 20} MiB, {trace['chunks']} chunks) | {serial * 1000:.0f} ms | "
              f"{trace['parallel_cpu'] * 1000:.0f} ms ({trace['parallel_cpu'] / serial:.2f}×) | "
              f"{trace['parallel_wall'] * 1000:.0f} ms ({serial / trace['parallel_wall']:.2f}×) | "
              f"{walls[2] * 1000:.0f} ms ({serial / walls[2]:.2f}×) | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
