package dev.baton.contract.topology;

/** A durable exchange. */
public record ExchangeSpec(String name, Type type) {

  public enum Type {
    TOPIC("topic"),
    DIRECT("direct");

    private final String brokerName;

    Type(String brokerName) {
      this.brokerName = brokerName;
    }

    /** The type as RabbitMQ spells it. */
    public String brokerName() {
      return brokerName;
    }
  }
}
