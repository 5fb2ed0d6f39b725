import Foundation
import RJLocks

extension AsyncGenerator where Input == Void {
    /// Makes an async generator whose body may run ahead of the requests, on the queue, until
    /// `capacity` values wait; each goes out once, in order (docs/async-generators.md, "Buffering").
    /// Without this, the body runs only while a request is served.
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
