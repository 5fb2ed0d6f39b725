// The requests an async generator's state machine holds: each a value inside the machine, named
// by its id, with its waiter (after swift-async-algorithms' AsyncChannel, whose state keeps each
// suspended consumer as an id and its continuation). A requester holds only the id; the machine
// decides an answer and hands the waiter out in the same hold of the lock, so nothing is ever
// decided but not yet handed over.

/// A request that could not be answered on its caller's thread at once.
@usableFromInline
struct AsyncRequest {
    @usableFromInline let id: UInt64
    /// A `GeneratorOperation<Input, Return>` of its generator (the machine is not generic).
    @usableFromInline let operation: Any
    /// A read (`next`, or a delegation's first step): a value produced ahead answers it, and its
    /// reader's cancellation withdraws it. `return` and `throw` are commands: they always act.
    @usableFromInline let isNext: Bool
    @usableFromInline var waiter = AsyncWaiter.none

    @inlinable
    init(id: UInt64, operation: Any, isNext: Bool) {
        self.id = id
        self.operation = operation
        self.isNext = isNext
    }
}

/// Who waits for a request's answer.
@usableFromInline
enum AsyncWaiter {
    /// Nobody yet: the answer is kept for the waiter that comes (`waiterArrives`).
    case none
    /// A Swift task, suspended on this `UnsafeContinuation<GeneratorStep<Element, Return>, any
    /// Error>` (its one word, so that no type is looked up to store it): resumed with the answer.
    case task(UnsafeRawPointer)
    /// The body of an await host, suspended in its await `generation`: the answer is kept, the
    /// await completed, and the body takes the answer when it resumes (`takeAnswer`).
    case body(_RJAwaitHost, generation: UInt64)
    /// Nobody will take it (a command from an await host that was cancelled): the answer is dropped.
    case nobody
}

/// An answer as the machine decides it, without the generator's types.
@usableFromInline
enum AsyncAnswer {
    /// What the thread carrying the decision out has in hand: the value the body just yielded,
    /// or how it just ended (never kept: a kept one is boxed, `yielded` or `result`).
    case atHand
    /// A value (an `Element`) yielded.
    case yielded(Any)
    /// A `Result<GeneratorStep<Element, Return>, any Error>`.
    case result(Any)
    /// The body has ended: the kept outcome, as the operation gets it.
    case outcome(AsyncGeneratorStateMachine.Ending)
    /// `CancellationError`: the reader was cancelled.
    case cancellation
}

/// An answer to hand to a waiter, outside the lock (the machine has let go of the waiter).
@usableFromInline
struct AsyncWaiterAnswer {
    @usableFromInline var waiter: AsyncWaiter
    @usableFromInline var operation: Any
    @usableFromInline var answer: AsyncAnswer
}

/// An answer decided before its waiter came, or for a body to take once resumed.
@usableFromInline
struct AsyncKeptAnswer {
    @usableFromInline let id: UInt64
    @usableFromInline let operation: Any
    @usableFromInline let answer: AsyncAnswer

    @inlinable
    init(id: UInt64, operation: Any, answer: AsyncAnswer) {
        self.id = id
        self.operation = operation
        self.answer = answer
    }
}

/// A first-in first-out queue: an array read from a moving head (an `Array`'s `removeFirst`
/// moves every element).
@usableFromInline
struct FIFO<Element> {
    @usableFromInline var items: [Element]
    @usableFromInline var head = 0

    @inlinable init(_ first: Element) {
        items = [first]
    }

    @inlinable var isEmpty: Bool { head == items.count }
    @inlinable var count: Int { items.count - head }
    @inlinable var first: Element? { isEmpty ? nil : items[head] }

    @inlinable mutating func append(_ item: Element) {
        items.append(item)
    }

    /// The oldest item, taken off.
    @inlinable mutating func pop() -> Element {
        let item = items[head]
        head += 1
        if head == items.count {
            items.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 32, head * 2 >= items.count {
            items.removeFirst(head)
            head = 0
        }
        return item
    }

    /// The first item for which `matches` holds, taken off (the others keep their order).
    @inlinable mutating func remove(where matches: (Element) -> Bool) -> Element? {
        guard let index = items[head...].firstIndex(where: matches) else { return nil }
        return items.remove(at: index)
    }

    /// Every item, oldest first.
    @inlinable var all: ArraySlice<Element> { items[head...] }
}
