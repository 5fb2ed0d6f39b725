import Dispatch

extension Promises {
    /// Runs `work` and, while the promise it returns is rejected, runs it again after `delay`
    /// seconds, up to `attempts` more times. The result settles as the last try does.
    ///
    /// - Parameters:
    ///   - queue: where `work` and `condition` run.
    ///   - attempts: how many times to try again after the first failure (google/promises'
    ///     meaning: 1 means two tries in all). Negative counts as 0.
    ///   - delay: seconds between a failure and the next try.
    ///   - condition: asked after each failure with the tries left and the error; `false` stops
    ///     retrying and rejects with that error. `nil` retries every error.
    ///   - work: one try; throwing counts as a failure.
    ///
    /// ```swift
    /// Promises.retry(attempts: 3, delay: 0.5) { fetch(url) }
    /// ```
    public static func retry<Value: Sendable>(
        on queue: DispatchQueue = .promises, attempts: Int = 1, delay: Double = 1.0,
        condition: (@Sendable (_ remainingAttempts: Int, _ error: any Error) -> Bool)? = nil,
        _ work: @escaping @Sendable () throws -> Promise<Value>
    ) -> Promise<Value> {
        let result = Promise<Value>(settled: nil)
        attempt(on: queue, remaining: max(0, attempts), delay: delay, condition: condition, work, into: result)
        return result
    }

    private static func attempt<Value: Sendable>(
        on queue: DispatchQueue, remaining: Int, delay: Double,
        condition: (@Sendable (Int, any Error) -> Bool)?,
        _ work: @escaping @Sendable () throws -> Promise<Value>, into result: Promise<Value>
    ) {
        queue.async {
            let promise: Promise<Value>
            do {
                promise = try work()
            } catch {
                promise = Promise<Value>(error)
            }
            promise.observe(on: queue) { [settled = promise.settledReference] in
                let outcome = settled.take()
                guard case .failure(let error) = outcome, remaining > 0, condition?(remaining, error) ?? true else {
                    result.settle(outcome)
                    return
                }
                queue.asyncAfter(deadline: .now() + max(0, delay)) {
                    attempt(on: queue, remaining: remaining - 1, delay: delay, condition: condition, work, into: result)
                }
            }
        }
    }
}
