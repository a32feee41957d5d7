package dev.baton.examples;

import dev.baton.worker.Command;

/** The order a command is about: the instance's business key (the order id), else the instance id. */
final class Orders {

  private Orders() {}

  static String of(Command cmd) {
    String key = cmd.businessKey();
    return key == null || key.isBlank() ? cmd.instanceId() : key;
  }
}
