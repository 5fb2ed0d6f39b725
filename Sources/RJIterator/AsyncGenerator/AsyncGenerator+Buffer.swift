import Foundation
import RJLocks

// Running ahead: an async generator made with `bufferingUpTo:` lets its body produce up to that
// many values before they are asked for, on the generator's queue, between requests. The
// values wait in the state machine (AsyncGeneratorStateMachine.swift, "holding" and "ahead");
// a `next` takes the oldest, or waits for the next one produced.

extension AsyncGenerator where Input == Void {
    /// Makes an async generator whose body may run ahead of the requests for its values, up
    /// to `capacity` values (produced on the queue, between requests). Values are delivered in
    /// order, each once, to the requests in the order they came; `return(_:)` and `throw(_:)`
    /// drop the values nobody asked for before them and act at the body's `yield`, so nothing
    /// comes out after their answer. Without this, the body runs only while a request is served.
    ///
    /// ```swift
    /// let prefetched = AsyncGenerator<Page, Void, Void>(bufferingUpTo: 2) { y in
    ///     var n = 0
    ///     while let page = try rj_awaitValue(fetch(n)) { try y.yield(page); n += 1 }
    /// }
    /// ```
    @inlinable
    public convenience init(bufferingUpTo capacity: Int, on queue: DispatchQueue? = nil, stackMode: StackMode? = nil,
                            file: StaticString = #fileID, line: UInt = #line,
                            _ body: @escaping @Sendable (AsyncYielder<Element, Void>) throws -> Return) {
        if capacity < 0 { fatalError("RJIterator: bufferingUpTo needs a capacity of 0 or more, got \(capacity)") }
        self.init(bufferCapacity: capacity, queue: queue, stackMode: stackMode, file: file, line: line, body)
    }
}
