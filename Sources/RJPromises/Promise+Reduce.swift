import Dispatch

extension Promise {
    /// Folds `items` into this promise's value one after the other: `reducer` gets the value so
    /// far and the next item and returns a promise of the next value; each step waits for the
    /// previous one. The first rejection (or throw) rejects the result and stops the fold.
    ///
    /// ```swift
    /// Promise(0).reduce([1, 2, 3]) { sum, n in Promise(sum + n) }   // 6
    /// ```
    public func reduce<Item: Sendable>(
        on queue: DispatchQueue = .promises, _ items: [Item],
        _ reducer: @escaping @Sendable (_ partial: Value, _ item: Item) throws -> Promise<Value>
    ) -> Promise<Value> {
        items.reduce(self) { partial, item in
            partial.then(on: queue) { value in try reducer(value, item) }
        }
    }
}
