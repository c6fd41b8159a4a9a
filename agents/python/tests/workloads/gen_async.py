"""Generators (incl. throw() and close()), asyncio coroutines, and stop()/start() in one process."""
import asyncio
import sys

import highrise_agent


def counter(n):
    for i in range(n):
        yield i


def catcher():
    while True:
        try:
            yield
        except ValueError:
            pass


async def tick(i):
    await asyncio.sleep(0)
    return i


async def gather():
    return await asyncio.gather(*(tick(i) for i in range(10)))


def session():
    total = sum(counter(20))
    gen = catcher()
    next(gen)
    for _ in range(3):
        gen.throw(ValueError())
    gen.close()
    asyncio.run(gather())
    return total


def main():
    for round_ in range(2):  # two sessions from one process: stop() then start() again
        agent = highrise_agent.start(program="gen-async-%d" % round_)
        assert agent is not None
        session()
        highrise_agent.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
