package dev.baton.runtime.ui;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class UiPathsTest {

  @ParameterizedTest(name = "from {0} the UI's root is {1}")
  @CsvSource({
      "/ui/, ./",
      "/ui/login, ./",
      "/ui/operations, ./",
      "/ui/instances/3f2a, ../",
      "/ui/operations/new, ../",
      "/ui/instances/3f2a/cancel, ../../",
      "/ui/workflows/shop/order, ../../",
      "/ui/workflows/shop/order/, ../../../",
      "/ui, ui/"})
  void thePageKnowsItsWayBackToTheRootWithoutKnowingWhereTheBrowserSeesIt(String page, String root) {
    assertThat(UiPaths.root(page)).isEqualTo(root);
  }

  @ParameterizedTest(name = "a redirect from {0} to {1} is {2}")
  @CsvSource({
      "/ui/instances/3f2a/cancel, instances/3f2a?done=cancelled, ../../instances/3f2a?done=cancelled",
      "/ui/login, instances/3f2a, ./instances/3f2a",
      "/ui/logout, login, ./login",
      "/ui/operations, operations/9c1e?created=1, ./operations/9c1e?created=1"})
  void redirectsAreRelativeToTheRequest(String from, String target, String location) {
    assertThat(UiPaths.from(from, target)).isEqualTo(location);
  }

  @ParameterizedTest(name = "{0} is {1} from the root")
  @CsvSource({"/ui/instances/3f2a, instances/3f2a", "/ui/, ''", "/elsewhere, ''"})
  void aPageNamedByItsRuntimePathIsNamedFromTheRoot(String path, String relative) {
    assertThat(UiPaths.relative(path)).isEqualTo(relative);
  }

  @ParameterizedTest(name = "X-Forwarded-Prefix {0}: cookies at {1}")
  @CsvSource(nullValues = "none", value = {
      "none, none",
      "/teams/shop/baton, /teams/shop/baton/ui",
      "/baton/, /baton/ui",
      "'/baton; Domain=evil.example', none",
      "baton, none",
      "'', /ui",
      "/, /ui"})
  void cookiesLiveUnderThePrefixAProxySaysItStripsAndOtherwiseWhereTheBrowserAsked(String prefix, String path) {
    assertThat(UiPaths.cookiePath(prefix)).as("none: no Path attribute, the browser's default-path").isEqualTo(path);
  }

  @ParameterizedTest(name = "{0} with X-Forwarded-Prefix {1}: cookies set there {2}")
  @CsvSource(nullValues = "none", value = {
      "/ui/login, none, true",
      "/ui/, none, true",
      "/ui/logout, none, true",
      "/ui, none, true",
      "/ui/instances/3f2a, none, false",
      "/ui/workflows/shop/order, none, false",
      "/ui/instances/3f2a, /teams/shop/baton, true",
      "/ui/instances/3f2a, 'not a path', false"})
  void withoutAPrefixCookiesAreSetOnlyWhereTheDefaultPathIsTheRoot(String page, String prefix, boolean settable) {
    assertThat(UiPaths.cookiesSettable(page, prefix)).isEqualTo(settable);
  }
}
