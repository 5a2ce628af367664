"""The log-like archive the one-entry benchmarks share: one 256 MiB entry of web-server log lines
(`app.log`), deflated by Python's zipfile at level 6, with ZIP64 records. Deterministic (seeded),
so every bench and every machine makes the same bytes."""
import random
import zipfile


def make(archive, target=256 << 20):
    rng = random.Random(28)
    paths = [f"/api/v{v}/{w}" for v in (1, 2) for w in ("items", "users", "orders", "search", "health", "login")]
    agents = ["curl/8.5", "Mozilla/5.0 (X11; Linux x86_64)", "okhttp/4.12", "python-requests/2.31"]
    info = zipfile.ZipInfo("app.log")
    info.compress_type = zipfile.ZIP_DEFLATED
    with zipfile.ZipFile(archive, "w", compresslevel=6) as z, z.open(info, "w", force_zip64=True) as out:
        written, second = 0, 0
        while written < target:
            lines = []
            for _ in range(5000):
                second += rng.randrange(3)
                lines.append(
                    f"2026-12-02T{second // 3600 % 24:02}:{second // 60 % 60:02}:{second % 60:02}Z "
                    f"10.{rng.randrange(4)}.{rng.randrange(256)}.{rng.randrange(256)} "
                    f"{rng.choice(('GET', 'GET', 'GET', 'POST', 'PUT'))} {rng.choice(paths)}/{rng.randrange(100000)} "
                    f"{rng.choice((200, 200, 200, 201, 304, 404, 500))} {rng.randrange(20, 90000)} "
                    f"{rng.randrange(1, 2000)}ms \"{rng.choice(agents)}\"\n"
                )
            chunk = "".join(lines).encode()[: target - written]
            out.write(chunk)
            written += len(chunk)
