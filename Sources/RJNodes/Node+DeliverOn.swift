import Dispatch

extension Node {
    /// A node that receives each value asynchronously on `queue`, so the transforms and
    /// listeners after it run there (in order, if `queue` is serial).
    ///
    /// ```swift
    /// a.deliverOn(background).map { heavy($0) }.deliverOn(.main).listenedBy(self).withBlock { show($0) }
    /// ```
    public func deliverOn(_ queue: DispatchQueue) -> Node<Value> {
        derive { value, downstream in
            let context = GraphEngine.shared.context  // travels with the value
            queue.async { downstream.receive(value, context: context) }
        }
    }
}
