import Dispatch

// EasyReact's `...OnMainQueue` names, kept so that code written against EasyReact reads the
// same. Each is the `on:` form with the main queue, which is what this package spells out
// everywhere else (a queue is the first parameter, `on:`, with a default; docs/nodes.md).

extension Node {
    /// EasyReact's name for `throttle(on: .main, interval)`.
    ///
    /// ```swift
    /// let search = input.throttleOnMainQueue(1)
    /// ```
    public func throttleOnMainQueue(_ interval: Double) -> Node<Value> {
        throttle(on: .main, interval)
    }

    /// EasyReact's name for `delay(on: .main, interval)`.
    ///
    /// ```swift
    /// let c = a.delayOnMainQueue(2)
    /// ```
    public func delayOnMainQueue(_ interval: Double) -> Node<Value> {
        delay(on: .main, interval)
    }

    /// EasyReact's name for `deliverOn(.main)`.
    ///
    /// ```swift
    /// node.deliverOnMainQueue().listenedBy(self).withBlock { label.text = $0 }
    /// ```
    public func deliverOnMainQueue() -> Node<Value> {
        deliverOn(.main)
    }
}

extension ListenerBuilder {
    /// EasyReact's name for `withBlock(on: .main)`: calls `block` with every value,
    /// asynchronously on the main queue.
    ///
    /// ```swift
    /// node.listenedBy(self).withBlockOnMainQueue { label.text = $0 }
    /// ```
    @inlinable @discardableResult
    public func withBlockOnMainQueue(_ block: @escaping @Sendable (Value) -> Void) -> any Cancelable {
        Listener.start(node: node, owner: owner, queue: .main, block: block)
    }
}
