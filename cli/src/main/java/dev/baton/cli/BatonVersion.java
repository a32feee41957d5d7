package dev.baton.cli;

import picocli.CommandLine.IVersionProvider;

/** The version from the jar manifest (Implementation-Version), or "development" when run from classes. */
final class BatonVersion implements IVersionProvider {

  @Override
  public String[] getVersion() {
    String v = BatonVersion.class.getPackage().getImplementationVersion();
    return new String[] {"baton " + (v == null ? "development" : v)};
  }
}
