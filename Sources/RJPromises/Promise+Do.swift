import Dispatch

extension Promise {
    /// Runs `work` asynchronously on `queue` and fulfills the promise with what it returns, or
    /// rejects it with what it throws.
    ///
    /// ```swift
    /// let parsed = Promise<Config>(on: .global()) { try Config(parsing: text) }
    /// ```
    ///
    /// Disfavoured: a block returning a `Promise<T>` picks the adopting form below (a
    /// `Promise<T>`, not a `Promise<Promise<T>>`), as in google/promises.
    @_disfavoredOverload
    public convenience init(on queue: DispatchQueue = .promises, _ work: @escaping @Sendable () throws -> Value) {
        self.init(settled: nil)
        queue.async { [self] in
            do {
                fulfill(try work())
            } catch {
                reject(error)
            }
        }
    }

    /// Runs `work` asynchronously on `queue` and settles the promise as the promise it returns
    /// settles (or rejects it with what it throws).
    ///
    /// ```swift
    /// let user = Promise<User>(on: .global()) { try cache.user() ?? api.fetchUser() }
    /// ```
    public convenience init(on queue: DispatchQueue = .promises, _ work: @escaping @Sendable () throws -> Promise<Value>) {
        self.init(settled: nil)
        queue.async { [self] in
            do {
                adopt(try work())
            } catch {
                reject(error)
            }
        }
    }
}
