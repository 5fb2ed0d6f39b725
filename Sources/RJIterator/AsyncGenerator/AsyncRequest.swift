/// A request not answered on its caller's thread at once: its answer comes from whichever
/// thread runs the body then; its caller waits on a continuation or in an `rj_await(nextOf:)`.
/// Its mutable fields are guarded by the generator's one lock, like the machine that queues it.
/// Not generic: a generic class's deinit looks its fields' types up in the runtime's cache,
/// once per request; the typed accessors are specialised where used.
@usableFromInline
final class AsyncRequest: @unchecked Sendable {
    /// A `GeneratorOperation<Input, Return>` of its generator.
    @usableFromInline let operation: Any
    /// A `next` (or a delegation's first step): a value the body produced ahead answers it.
    @usableFromInline let isNext: Bool

    @usableFromInline var waiter = AsyncWaiter.none
    /// The answer (a `Result<GeneratorStep<Element, Return>, any Error>`), kept when it came
    /// before a continuation waited for it, or for an `rj_await` to read after its callback.
    @usableFromInline var answer: Any?
    /// Its caller was cancelled: whatever the body answers, the caller gets `CancellationError`.
    @usableFromInline var cancelled = false
    /// The state machine decided its answer (a value, the outcome, `CancellationError`): a
    /// cancellation of its caller after that changes nothing.
    @usableFromInline var answered = false

    @inlinable
    init(_ operation: Any, isNext: Bool) {
        self.operation = operation
        self.isNext = isNext
    }

    /// Takes the answer the machine decided (`answer`, boxed only if kept): who to tell, and whether
    /// the caller was cancelled before it was decided (then it gets `CancellationError`). Under the lock, once.
    @inlinable
    func takeAnswer(_ answer: @autoclosure () -> Any) -> (waiter: AsyncWaiter, cancelled: Bool) {
        let waiting = waiter
        waiter = .none
        if case .continuation = waiting {} else { self.answer = answer() }
        return (waiting, cancelled)
    }
}

/// Who waits for a request's answer.
@usableFromInline
enum AsyncWaiter {
    /// Nobody yet (the answer is kept for the one who comes).
    case none
    /// A Swift task, suspended on this `UnsafeContinuation<GeneratorStep<Element, Return>, any
    /// Error>` (its one word, so that no type is looked up to store it).
    case continuation(UnsafeRawPointer)
    /// An `rj_await` of another body: called once the answer is kept.
    case callback(@Sendable () -> Void)
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

    /// Every item, oldest first.
    @inlinable var all: ArraySlice<Element> { items[head...] }
}
