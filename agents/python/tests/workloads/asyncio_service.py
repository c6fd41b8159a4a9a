"""An asyncio service in the issue's shape: requests handled 50 at a time, each a task that awaits
`fetch_user` (a 50 ms `asyncio.sleep`, the database) and then hashes in `checksum`. The loop is
driven from module level, batch by batch. Prints "served N" at the end.
Arguments: seconds [leak]: with `leak`, every batch also leaves one task awaiting in `never`
for good (a task leak: the async form of the paper's thread leak)."""
import asyncio
import hashlib
import sys

served = 0
leaked = []


async def fetch_user(user_id):
    await asyncio.sleep(0.05)
    return {"id": user_id, "name": "user-%d" % user_id}


def checksum(user):
    digest = hashlib.sha256()
    for _ in range(50):
        digest.update(repr(user).encode())
    return digest.hexdigest()


async def handle(request_id):
    global served
    user = await fetch_user(request_id)
    checksum(user)
    served += 1


async def never():
    await asyncio.Event().wait()


seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 4.0
leak = len(sys.argv) > 2 and sys.argv[2] == "leak"
loop = asyncio.new_event_loop()
asyncio.set_event_loop(loop)
end = loop.time() + seconds
request_id = 0
while loop.time() < end:
    batch = [handle(request_id + i) for i in range(50)]
    request_id += 50
    if leak:
        leaked.append(loop.create_task(never()))
    loop.run_until_complete(asyncio.gather(*batch))
for task in leaked:
    task.cancel()
if leaked:
    loop.run_until_complete(asyncio.gather(*leaked, return_exceptions=True))
loop.close()
print("served %d" % served)
