package dev.baton.conformance;

/** The cases of conformance/README.md, each with the sentence a test's name reads as. */
enum Case {
  SUCCESS("success", "a command that succeeds completes its instance, its event copying the command's headers"),
  BUSINESS_FAILURE("business failure", "a declined command fails its instance with the error code, run once"),
  STAIRCASE("staircase through every tier to the dead-letter queue",
      "a command that always crashes is retried through each tier of its staircase, then parked with its reason and "
          + "answered error"),
  RETRY_THEN_SUCCESS("retry, then success", "a command that crashes once succeeds on its retry"),
  DUPLICATES("duplicates", "a command sent twice is run once and answered twice with one message id"),
  DEADLINE_PASSED("deadline passed", "a command past its deadline is answered expired without running"),
  OVERSIZED_OUTPUT("oversized output", "an output over the size limit is parked at once and answered error"),
  CONNECTION_DROPPED("connection dropped mid-handler",
      "a handler whose connections are closed under it is run once and its instance succeeds"),
  HANDLER_TIME_LIMIT("handler time limit",
      "a handler past its time limit is not run again for a re-send, and its late outcome is published"),
  SUBSCRIPTION_EVENTS("subscription events",
      "subscription events are handled once, or retried through each tier and then parked when they crash");

  private final String title;
  private final String sentence;

  Case(String title, String sentence) {
    this.title = title;
    this.sentence = sentence;
  }

  /** As the README's table names it. */
  String title() {
    return title;
  }

  @Override
  public String toString() {
    return sentence;
  }
}
