import RJIterator
import RJNodes
import RJPromises

// Bridges between the package's parts, kept out of them so that their dependencies run one
// way: reactive nodes know neither promises nor rj_async.

extension Node {
    /// A promise of the node's current value, or of the next one if it is empty.
    ///
    /// ```swift
    /// node.firstValue().then { print("first: \($0)") }
    /// ```
    public func firstValue() -> Promise<Value> {
        let promise = Promise<Value>.pending()
        let waiting = onNextValue(includingCurrent: true) { promise.fulfill($0) }
        promise.onCancel { waiting.cancel() }
        return promise
    }

    /// A promise of the node's next change: the next value set on it (not the current one).
    ///
    /// ```swift
    /// node.nextChange().then { print("changed to \($0)") }
    /// ```
    public func nextChange() -> Promise<Value> {
        let promise = Promise<Value>.pending()
        let waiting = onNextValue(includingCurrent: false) { promise.fulfill($0) }
        promise.onCancel { waiting.cancel() }
        return promise
    }

    /// The old name of ``nextChange()``: `nextValue` is a generator's "pull the next value".
    ///
    /// ```swift
    /// node.nextValue().then { print($0) }   // node.nextChange().then { ... }
    /// ```
    @available(*, deprecated, renamed: "nextChange()")
    public func nextValue() -> Promise<Value> {
        nextChange()
    }
}

/// Waits, inside an `rj_async` body, for the next value set on `node` (not its current one),
/// without blocking the body's queue; the result's value is that value. Cancelling the task
/// stops the waiting.
///
/// ```swift
/// rj_async {
///     let r = rj_await(nextOf: searchText)
///     print("searching for \(r.value as! String)")
/// }
/// ```
@available(*, noasync, message: "rj_await suspends the body of an rj_async task or an AsyncGenerator, which are synchronous closures; in async code use Swift's await (try await gen.next(), for try await, try await promise.value)")
public func rj_await<T>(nextOf node: Node<T>) -> RJResult {
    rj_await(node.nextChange())
}
