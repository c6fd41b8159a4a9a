"""An aiohttp service for the corpus (scripts/corpus/aiohttp_check.py): GET /user/N awaits
`fetch_user` (a 50 ms `asyncio.sleep` standing for the database) and hashes the answer in
`checksum`. `web.run_app` runs the loop (no coroutine of ours waits for good); SIGTERM stops it
and "SERVED N" is printed. Argument: the port."""
import asyncio
import hashlib
import sys

from aiohttp import web

served = 0


async def fetch_user(user_id):
    await asyncio.sleep(0.05)
    return {"id": user_id, "name": "user-%d" % user_id}


def checksum(user):
    digest = hashlib.sha256()
    for _ in range(50):
        digest.update(repr(user).encode())
    return digest.hexdigest()


async def handle(request):
    global served
    user = await fetch_user(int(request.match_info["id"]))
    body = checksum(user)
    served += 1
    return web.Response(text=body)


def main():
    app = web.Application()
    app.router.add_get("/user/{id}", handle)
    web.run_app(app, host="127.0.0.1", port=int(sys.argv[1]), access_log=None, print=lambda *_: print("LISTENING", flush=True))
    print("SERVED %d" % served, flush=True)


if __name__ == "__main__":
    main()
