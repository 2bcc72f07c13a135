import asyncio


class Base:
    def hello(self):
        return "base"


class Child(Base):
    def hello(self):
        return super().hello() + "+child"


async def ticks(n):
    for i in range(n):
        yield i * 10


async def collect(n):
    out = []
    async for v in ticks(n):
        out.append(v)
    return out


async def work(k):
    await asyncio.sleep(0)
    return k + 1


async def amain():
    got = await collect(2)
    both = await asyncio.gather(work(1), work(2))
    return got, both


def main():
    print(Child().hello())
    print(asyncio.run(amain()))


main()
