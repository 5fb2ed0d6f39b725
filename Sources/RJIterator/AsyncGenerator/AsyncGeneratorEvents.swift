/// What an async generator's body hands out when its coroutine suspends: a value for the
/// request being served, or the generation of an await it now waits in.
@usableFromInline
enum AsyncEvent<Element> {
    case yielded(Element)
    case awaiting(UInt64)
}

/// What an async generator's body is resumed with: a request's input, or news that its await has
/// a result, taken from the await state (an `RJResult` here would be copied through value witnesses).
@usableFromInline
enum AsyncResume<Input> {
    case input(Input)
    case awaited
}

/// How far one step of the body got.
@usableFromInline
enum AsyncServed<Element, Return> {
    /// The body yielded this value (it is suspended at that `yield`).
    case yielded(Element)
    /// The body ended: its outcome, as the request it served gets it.
    case ended(Result<GeneratorStep<Element, Return>, any Error>)
    /// The body waits in an await of this generation.
    case awaiting(UInt64)
}

/// What resumes an async generator's body for one step.
@usableFromInline
enum AsyncResumption<Input, Return> {
    case operation(GeneratorOperation<Input, Return>)
    /// The await the body waits in has its result (in the await state).
    case awaited
    /// `CancellationError` at the body's `yield`: the generator is cancelled.
    case cancellation
}
