package dev.baton.worker;

/**
 * Handles one event delivered to a subscription queue. Return normally when done; throw for a technical failure
 * (retried along the subscription's staircase, then dead-lettered). Subscriptions publish no result events.
 */
@FunctionalInterface
public interface EventHandler {

  void handle(Event event) throws Exception;
}
