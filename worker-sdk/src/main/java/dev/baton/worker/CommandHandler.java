package dev.baton.worker;

/**
 * Handles one command of a service. Return {@link CommandResult#success(Object)} or {@link CommandResult#failed(String,
 * String)}; throw for a technical failure (the SDK retries it along the command's staircase, then dead-letters it
 * and publishes an {@code error} event). Never ack anything yourself: the SDK acks once the result is confirmed.
 *
 * <p>Handlers of one queue run one delivery at a time per channel ({@link BatonWorker.Builder#concurrency(int)}
 * channels per queue), so a handler may block; it must be thread-safe when concurrency is above one.
 */
@FunctionalInterface
public interface CommandHandler {

  CommandResult handle(Command command) throws Exception;
}
