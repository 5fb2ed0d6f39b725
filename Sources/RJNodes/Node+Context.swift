extension MutableNode {
    /// Sets `value` with a context that travels with it through the graph to the listeners
    /// that ask for it (`withContextBlock`); plain sets carry `nil`.
    ///
    /// ```swift
    /// node.set(42, context: "from the settings screen")
    /// ```
    public func set(_ value: Value, context: (any Sendable)?) {
        receive(value, context: context.map { ValueContext($0) }, isSet: true)
    }
}

extension Node {
    /// The value, or `defaultValue` while the node is empty.
    ///
    /// ```swift
    /// MutableNode<Int>().value(default: 0)   // 0
    /// ```
    public func value(default defaultValue: Value) -> Value {
        engine.lock.withLock {
            if case .value(let v) = slot { return v }
            return defaultValue
        }
    }

    /// Runs `body` with the value, if the node holds one.
    ///
    /// ```swift
    /// node.getValue { print($0) }   // nothing when empty
    /// ```
    public func getValue(_ body: (Value) -> Void) {
        let current: Value? = engine.lock.withLock {
            if case .value(let v) = slot { return v }
            return nil
        }
        if let current { body(current) }
    }
}

extension ListenerBuilder {
    /// Calls `block` with every value and its context (`MutableNode.set(_:context:)`;
    /// `nil` for a plain set and for the current value delivered at once), synchronously.
    ///
    /// ```swift
    /// node.listenedBy(self).withContextBlock { value, context in print(value, context ?? "none") }
    /// ```
    @discardableResult
    public func withContextBlock(_ block: @escaping @Sendable (Value, (any Sendable)?) -> Void) -> any Cancelable {
        Listener.start(node: node, owner: owner, queue: nil) { value in
            // Runs inside the wave (or at once, for the current value, with no context).
            let engine = GraphEngine.shared
            block(value, engine.inWave ? engine.context?.value : nil)
        }
    }
}
