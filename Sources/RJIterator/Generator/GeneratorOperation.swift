// The vocabulary of a generator's life; the state machine (GeneratorStateMachine.swift) turns
// an operation into an action.

/// What a caller asks of a generator (every public call of `Generator`, `AsyncGenerator`, a
/// delegation and the seed API); the state machine answers with a ``GeneratorAction``.
@usableFromInline
enum GeneratorOperation<Input, Return> {
    /// `next(input)`: resume the body with `input`; a fresh body starts and the input is ignored.
    case next(Input)
    /// `send(input)` (Python's `gen.send`): `next` on a started generator only.
    case send(Input)
    /// `start()` (Python's `next(gen)` on a fresh generator): run a fresh body to its first `yield`.
    case start
    /// The first step of a delegation (`yieldAll`): start a fresh body, or resume a suspended
    /// one whose `Input` is `Void` (no other input can be made up).
    case delegate
    /// `throw(error)`: the suspended `yield` throws `error`.
    case throwing(any Error)
    /// `return(value)`: the suspended `yield` throws the exit signal carrying `value`.
    case returning(Return)
    /// `close()`, and a delegation's close: the exit signal without a value.
    case close
}

/// How a suspended body is resumed: what its pending `yield` is told right after the switch
/// back in. Carried through a local of the resumer's frame (`inbox`).
@usableFromInline
enum ResumeSignal<Input> {
    /// The `yield` returns this input.
    case value(Input)
    /// The `yield` throws this error.
    case error(any Error)
    /// The `yield` throws the exit signal (`_RJCoroutineHost.takeExitError()` makes it).
    case close
}

/// What `acquire` found: `suspended` and `created` mean the caller now holds `running`;
/// `running` and `completed` that it does not.
@usableFromInline
enum Acquisition {
    case suspended, created, running, completed
}

/// What the state machine tells an operation to do.
@usableFromInline
enum GeneratorAction<Input, Return> {
    /// Holding `running`, taken from `created`: make the coroutine and run the body from its
    /// first line.
    case start
    /// Holding `running`, taken from `suspended` (or owned): switch into the body with this signal.
    case resume(ResumeSignal<Input>)
    /// Holding `running`, taken from `created`: complete without running the body.
    case complete(Completion<Return>)
    /// Nothing taken, the generator has completed: report the outcome it kept.
    case reportOutcome
    /// Nothing taken: the step is `.returned(value)` (`return(v)` of a completed generator).
    case answer(Return)
    /// Nothing taken (or given back): the operation throws this.
    case fail(any Error)
}
