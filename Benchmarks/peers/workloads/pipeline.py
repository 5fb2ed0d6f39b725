# An itertools-style pipeline, every stage a generator function of its own (not the C
# itertools, so that every language runs the same generators): count -> map -> filter ->
# takewhile -> chunked -> map -> islice (every 3rd) -> sum. SIZE bounds the squares.
import harness


def count(start):
    n = start
    while True:
        yield n
        n += 1


def map_(f, source):
    for x in source:
        yield f(x)


def filter_(predicate, source):
    for x in source:
        if predicate(x):
            yield x


def takewhile(predicate, source):
    for x in source:
        if not predicate(x):
            return
        yield x


def chunked(size, source):
    chunk = []
    for x in source:
        chunk.append(x)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def islice(step, source):
    k = 0
    for x in source:
        if k % step == 0:
            yield x
        k += 1


def run(size):
    squares = map_(lambda x: x * x, count(1))
    odd = filter_(lambda x: x % 2 == 1, squares)
    bounded = takewhile(lambda x: x < size, odd)
    sums = map_(sum, chunked(7, bounded))
    total = 0
    n = 0
    for s in islice(3, sums):
        total = (total + s) % 1000000007
        n += 1
    return ["pipeline below %d: %d chunk sums taken" % (size, n), "total mod 1e9+7: %d" % total]


harness.main(run, 1000000)
