# A pipeline of coroutines driven with send: every value goes into a scaler, which sends it on
# to a running averager and passes the averager's answer back (each primed with next()). SIZE
# values are sent.
import sys
import time


def averager():
    total = 0.0
    count = 0
    average = None
    while True:
        term = yield average
        total += term
        count += 1
        average = total / count


def scaler(factor, target):
    answer = None
    while True:
        x = yield answer
        answer = target.send(x * factor)


def run(size):
    avg = averager()
    next(avg)
    pipe = scaler(0.5, avg)
    next(pipe)
    checksum = 0
    answer = None
    for i in range(size):
        answer = pipe.send(float(i % 1000))
        if i % 1000 == 999:
            checksum += int(answer * 1000)
    return ["average of %d values: %d/1000" % (size, int(answer * 1000)),
            "checksum %d" % checksum]


def main():
    size = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    run(size)
    t0 = time.perf_counter_ns()
    out = run(size)
    t1 = time.perf_counter_ns()
    print("\n".join(out))
    print("time_ns %d" % (t1 - t0))


main()
