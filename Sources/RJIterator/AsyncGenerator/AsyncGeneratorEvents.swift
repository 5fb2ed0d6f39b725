import RJLocks

// What crosses an async generator's switches: what its body hands out (a value, or the await it
// now waits in), what it is resumed with (an input, or its await's result), and how far one step
// got. (AsyncGenerator.swift says which file holds what.)

/// What an async generator's body hands out when its coroutine suspends: a value for the
/// request being served, or the generation of an await it now waits in.
@usableFromInline
enum AsyncEvent<Element> {
    case yielded(Element)
    case awaiting(UInt64)
}

/// What an async generator's body is resumed with: a request's input at a `yield`, or the news
/// that its await has a result (left in the generator's `awaitResult`: carried through the
/// switch, an `RJResult` would make every resume copy this enum through value witnesses).
@usableFromInline
enum AsyncResume<Input> {
    case input(Input)
    case awaited
}

/// How far one step of the body got.
@usableFromInline
enum AsyncServed<Element, Return> {
    /// The request is answered: the body yielded or ended.
    case answered(Result<GeneratorStep<Element, Return>, any Error>)
    /// The body waits in an await of this generation; the request is answered later.
    case awaiting(UInt64)
}
