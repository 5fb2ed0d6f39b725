# A pipeline of coroutines driven with send: every value goes into a scaler, which sends it on
# to a running averager and passes the averager's answer back (each primed with next()). SIZE
# values are sent.
import harness


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


harness.main(run, 1000)
