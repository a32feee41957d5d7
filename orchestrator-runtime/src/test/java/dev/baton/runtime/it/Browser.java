package dev.baton.runtime.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Base64;
import java.util.Comparator;
import java.util.Map;
import java.util.stream.Stream;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * Debian's headless Chromium driven by Debian's chromedriver: both paths are given, so Selenium never looks for (or
 * downloads) a browser or a driver of its own. Each browser gets a fresh profile, removed on close. Screenshots go to
 * {@code target/ui-screenshots/}, for people to look at.
 */
final class Browser implements AutoCloseable {

  static final Path CHROMIUM = Path.of(System.getProperty("baton.chromium", "/usr/bin/chromium"));
  static final Path CHROMEDRIVER = Path.of(System.getProperty("baton.chromedriver", "/usr/bin/chromedriver"));
  static final Path SCREENSHOTS = Path.of("target", "ui-screenshots");

  final ChromeDriver driver;
  private final Path profile;

  private Browser(int width, int height) {
    try {
      profile = Files.createTempDirectory("baton-ui-chromium-");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    ChromeOptions options = new ChromeOptions();
    options.setBinary(CHROMIUM.toFile());
    options.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-dev-shm-usage", "--user-data-dir=" + profile,
        "--window-size=" + width + "," + height);
    ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile())
        .usingAnyFreePort().build();
    driver = new ChromeDriver(service, options);
    driver.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(30));
    driver.manage().window().setSize(new Dimension(width, height));
  }

  /** A laptop-sized window. */
  static Browser laptop() {
    return new Browser(1280, 900);
  }

  /** A phone-sized window. */
  static Browser phone() {
    return new Browser(390, 844);
  }

  /** Writes the page as {@code target/ui-screenshots/<name>.png} and returns the path. */
  Path screenshot(String name) {
    try {
      Files.createDirectories(SCREENSHOTS);
      Path file = SCREENSHOTS.resolve(name + ".png");
      Path shot = ((TakesScreenshot) driver).getScreenshotAs(OutputType.FILE).toPath();
      Files.copy(shot, file, StandardCopyOption.REPLACE_EXISTING);
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The whole page, however long, at the window's width: Chromium's own capture beyond the viewport (growing the
   * window instead cut pages off, as headless Chromium keeps part of the window for its invisible toolbars).
   */
  Path fullPage(String name) {
    Map<String, Object> layout = driver.executeCdpCommand("Page.getLayoutMetrics", Map.of());
    @SuppressWarnings("unchecked")
    Map<String, Object> content = (Map<String, Object>) layout.get("cssContentSize");
    // the capture lays the page out without a vertical scrollbar: as wide as the window, not as today's layout
    double window = ((Number) driver.executeScript("return window.innerWidth;")).doubleValue();
    double width = Math.max(window, ((Number) content.get("width")).doubleValue());
    double height = Math.min(8000, ((Number) content.get("height")).doubleValue());
    Map<String, Object> shot = driver.executeCdpCommand("Page.captureScreenshot", Map.of("format", "png",
        "captureBeyondViewport", true, "clip", Map.of("x", 0, "y", 0, "width", width, "height", height, "scale", 1)));
    try {
      Files.createDirectories(SCREENSHOTS);
      Path file = SCREENSHOTS.resolve(name + ".png");
      Files.write(file, Base64.getDecoder().decode((String) shot.get("data")));
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Everything the page says in words. */
  String text() {
    return driver.findElement(org.openqa.selenium.By.tagName("body")).getText();
  }

  @Override
  public void close() {
    try {
      driver.quit();
    } finally {
      try (Stream<Path> files = Files.walk(profile)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      } catch (IOException ignored) {
        // a temporary directory
      }
    }
  }
}
