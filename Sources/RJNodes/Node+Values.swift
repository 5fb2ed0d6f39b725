import RJLocks

extension Node {
    /// The node's values as an `AsyncSequence`: the current value (if any), then every later
    /// value, in order; none is dropped (they wait in a buffer until asked for). Iterating keeps
    /// the node alive; the iteration ends when its task is cancelled, and leaving the loop stops
    /// listening.
    ///
    /// ```swift
    /// for await value in node.values { print(value) }
    /// ```
    public var values: NodeValues<Value> { NodeValues(node: self) }

    /// Calls `body` once: with the current value if `includingCurrent` and the node holds one,
    /// otherwise with the next value set. Synchronously, on the thread that sets it.
    ///
    /// - Returns: a ``Cancelable`` that stops waiting.
    ///
    /// ```swift
    /// node.onNextValue(includingCurrent: false) { print("changed to \($0)") }
    /// ```
    @discardableResult
    public func onNextValue(includingCurrent: Bool, _ body: @escaping @Sendable (Value) -> Void) -> any Cancelable {
        let once = OnceEdge(self)
        let id = addEdge(deliveringCurrent: includingCurrent) { value in
            if once.fire() { body(value) }
        }
        once.arm(id)
        return once
    }

    /// The old name of ``onNextValue(includingCurrent:_:)``: `nextValue` is a generator's
    /// "pull the next value" (`Generator.nextValue()`), so the node's call-me-once has its own.
    ///
    /// ```swift
    /// node.nextValue(includingCurrent: false) { print($0) }   // node.onNextValue(includingCurrent: false) { ... }
    /// ```
    @available(*, deprecated, renamed: "onNextValue(includingCurrent:_:)")
    @discardableResult
    public func nextValue(includingCurrent: Bool, _ body: @escaping @Sendable (Value) -> Void) -> any Cancelable {
        onNextValue(includingCurrent: includingCurrent, body)
    }
}

/// The values of a node as an `AsyncSequence` (``Node/values``).
///
/// ```swift
/// for await value in node.values { print(value) }
/// ```
public struct NodeValues<Value: Sendable>: AsyncSequence, Sendable {
    public typealias Element = Value
    let node: Node<Value>

    public func makeAsyncIterator() -> Iterator {
        Iterator(subscription: NodeSubscription(node))
    }

    /// Iterates a node's values; see ``Node/values``.
    public struct Iterator: AsyncIteratorProtocol {
        let subscription: NodeSubscription<Value>

        public mutating func next() async -> Value? {
            await subscription.next()
        }
    }
}

/// One iteration of a node's values: listens from its start (the node's edge holds it weakly)
/// and stops listening when it goes (the loop ended) or is cancelled.
final class NodeSubscription<Value: Sendable>: @unchecked Sendable {
    private let node: Node<Value>
    private let state = RJLockedValue(State())
    private var edgeID: UInt64 = 0

    private struct State {
        var buffer: [Value] = []
        var waiter: CheckedContinuation<Value?, Never>?
        var finished = false
    }

    init(_ node: Node<Value>) {
        self.node = node
        edgeID = node.addEdge { [weak self] value in self?.push(value) }
    }

    deinit {
        node.removeEdge(edgeID)
    }

    private func push(_ value: Value) {
        let waiter: CheckedContinuation<Value?, Never>? = state.withLockedValue { state in
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            state.buffer.append(value)
            return nil
        }
        waiter?.resume(returning: value)
    }

    func next() async -> Value? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Value?, Never>) in
                let ready: Value?? = state.withLockedValue { state in
                    if !state.buffer.isEmpty { return .some(state.buffer.removeFirst()) }
                    if state.finished { return .some(nil) }
                    state.waiter = continuation
                    return .none
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            let waiter = state.withLockedValue { state -> CheckedContinuation<Value?, Never>? in
                state.finished = true
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: nil)
        }
    }
}

/// A one-shot edge: fires once, then removes itself. Guarded by the engine's lock.
final class OnceEdge<Value: Sendable>: Cancelable, @unchecked Sendable {
    private let node: Node<Value>
    @exclusivity(unchecked) private var fired = false
    @exclusivity(unchecked) private var id: UInt64?

    init(_ node: Node<Value>) {
        self.node = node
    }

    /// True the first time; removes the edge (at once, or when it is known).
    func fire() -> Bool {
        GraphEngine.shared.lock.withLock {
            if fired { return false }
            fired = true
            if let id { node.removeEdge(id) }
            return true
        }
    }

    func arm(_ id: UInt64) {
        GraphEngine.shared.lock.withLock {
            self.id = id
            if fired { node.removeEdge(id) }
        }
    }

    func cancel() {
        GraphEngine.shared.lock.withLock {
            fired = true
            if let id { node.removeEdge(id) }
        }
    }
}
