package dev.baton.runtime.ui;

import static dev.baton.runtime.ui.Html.esc;

import dev.baton.httpapi.InstanceLink;
import dev.baton.httpapi.MapIterations;
import dev.baton.runtime.ui.InstanceView.Dispatch;
import dev.baton.runtime.ui.InstanceView.Failure;
import dev.baton.runtime.ui.StepPicture.Box;
import dev.baton.runtime.ui.StepPicture.Edge;
import dev.baton.runtime.ui.StepPicture.Frame;
import dev.baton.workflow.StepKind;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Draws a {@link StepPicture} as inline SVG. Colours come from the stylesheet through status classes (no inline
 * styles: the pages' Content-Security-Policy forbids them); every box also says its status in words. Each box links
 * to the step's row in the table below; a map, and each step of its body, to the list of its iterations there. A
 * child workflow step's last line, {@code ↳ <workflow> · <status>}, links to its child instance's page.
 */
final class StepPictureSvg {

  /** What fits in a box's width (220 px) at the stylesheet's font sizes. */
  private static final int NAME_CHARS = 24;
  private static final int LINE_CHARS = 29;
  /** The width of a character of a frame's label, about (11 px, semi-bold). */
  private static final int LABEL_CHAR_W = 7;

  private StepPictureSvg() {}

  /**
   * @param page the instance's page, relative to the UI's root: the links within the picture are to its parts, and
   *     a fragment alone would be read against the page's {@code <base>} (see {@link UiPaths})
   */
  static String render(StepPicture p, String page, String title, Instant now) {
    StringBuilder b = new StringBuilder();
    b.append("<svg class=\"picture\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 ").append(p.width())
        .append(' ').append(p.height()).append("\" width=\"").append(p.width()).append("\" role=\"img\"")
        .append(" aria-label=\"").append(esc(title)).append("\">");
    b.append("<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\"")
        .append(" markerHeight=\"7\" orient=\"auto-start-reverse\"><path d=\"M0,0 L10,5 L0,10 z\" class=\"arrow\"/>")
        .append("</marker></defs>");
    for (Frame f : p.frames()) {
      frame(b, f, page);
    }
    for (Edge e : p.edges()) {
      b.append("<line class=\"edge\" x1=\"").append(e.x1()).append("\" y1=\"").append(e.y1()).append("\" x2=\"")
          .append(e.x2()).append("\" y2=\"").append(e.y2()).append("\" marker-end=\"url(#arrow)\"/>");
    }
    for (Box box : p.boxes()) {
      box(b, box, page, now);
    }
    return b.append("</svg>").toString();
  }

  private static void frame(StringBuilder b, Frame f, String page) {
    boolean map = f.kind() == StepKind.MAP && !f.branch();
    String cls = (f.branch() ? "branch" : "group") + (map ? " map" : "") + " " + Html.statusClass(f.status())
        + (f.taken() ? " taken" : "") + (f.dimmed() ? " dimmed" : "");
    b.append("<g class=\"").append(cls).append("\"><rect x=\"").append(f.x()).append("\" y=\"").append(f.y())
        .append("\" width=\"").append(f.w()).append("\" height=\"").append(f.h()).append("\" rx=\"8\"/>");
    String label = (f.taken() ? "✓ taken: " : "") + f.label() + (f.branch() ? "" : " · " + f.status());
    MapIterations iterations = f.iterations();
    String tally = !map ? null : iterations == null ? "no iteration started" : iterations.summary();
    // the whole condition or count, which the frame may cut
    b.append("<title>").append(esc(tally == null ? label : label + " · " + tally)).append("</title>");
    if (iterations != null) {
      b.append("<a href=\"").append(page).append("#iterations-").append(esc(Html.url(f.name()))).append("\">");
    }
    int chars = f.w() / LABEL_CHAR_W;
    text(b, "frame-label", f.x() + 8, f.y() + (f.branch() ? 14 : 16), cut(label, chars));
    if (map) {
      List<String> lines = lines(tally, chars, 2);
      for (int i = 0; i < lines.size(); i++) {
        text(b, "tally", f.x() + 8, f.y() + 32 + 14 * i, lines.get(i));
      }
    }
    if (iterations != null) {
      b.append("</a>");
    }
    b.append("</g>");
  }

  private static void box(StringBuilder b, Box box, String page, Instant now) {
    StepPicture.Body body = box.body();
    // a step of a map's body is its iterations' steps: their list says which did what
    b.append("<a href=\"").append(page).append('#').append(body == null ? "step-" + esc(Html.url(box.name()))
        : "iterations-" + esc(Html.url(body.map()))).append("\">");
    b.append("<g class=\"step ").append(Html.statusClass(box.status())).append("\" data-step=\"")
        .append(esc(box.name())).append("\">");
    Failure error = box.step() != null ? box.step().latest().error()
        : body != null && body.failed() != null ? InstanceViewAdapter.failure(body.failed()) : null;
    String tally = body == null || body.counts().isEmpty() ? null : MapIterations.tally(body.counts());
    // the box has room for a line of the error; its tooltip has all of it (and which iteration's it is)
    b.append("<title>").append(esc(box.name() + ": " + (tally == null ? box.status() : tally)
        + (error == null ? "" : " (" + (body == null ? "" : error.step() + ": ") + error.text() + ")")))
        .append("</title>");
    b.append("<rect x=\"").append(box.x()).append("\" y=\"").append(box.y()).append("\" width=\"").append(box.w())
        .append("\" height=\"").append(box.h()).append("\" rx=\"6\"/>");
    int tx = box.x() + 10;
    // a child workflow step says what it is on its last line (↳ invoicing), as a task says nothing
    String kind = box.kind() == StepKind.TASK || box.kind() == StepKind.WORKFLOW ? "" : box.kind().wireName() + " ";
    text(b, "name", tx, box.y() + 19, cut(kind + box.name(), NAME_CHARS));
    StringBuilder second = new StringBuilder(tally == null ? box.status() : tally);
    if (box.step() != null) {
      Dispatch d = box.step().latest();
      second.append(" · #").append(d.attempt());
      d.duration(now).ifPresent(x -> second.append(" · ").append(Html.duration(x)));
    }
    text(b, "detail", tx, box.y() + 37, cut(second.toString(), LINE_CHARS));
    if (box.step() != null && box.step().compensation() != null) {
      Dispatch c = box.step().compensation();
      text(b, "compensation " + Html.statusClass(c.status()), tx, box.y() + 55,
          cut("↺ " + c.action() + " " + c.status(), LINE_CHARS));
    } else if (error != null) { // a cancel is why it stopped, not a failure: not in red
      text(b, "CANCELLED".equals(box.status()) ? "detail-note" : "error", tx, box.y() + 55,
          cut(inBox(box, error), LINE_CHARS));
    } else if (box.signal() != null) {
      text(b, "detail-note", tx, box.y() + 55, cut("waits for signal " + box.signal(), LINE_CHARS));
    }
    b.append("</g></a>");
    if (box.kind() == StepKind.WORKFLOW) {
      child(b, box, tx, box.y() + 73);
    }
  }

  /**
   * An error as a box's line says it: a child's failure without what the child's line under it says (its id and how
   * it ended), so the box has room for why — {@code ChildFailed: tax service is down}; the tooltip has all of it.
   */
  private static String inBox(Box box, Failure error) {
    InstanceLink child = box.step() == null ? null : box.step().child();
    String reason = error.reason() == null ? "" : error.reason();
    if (child != null && box.step().failedByItsChild()) {
      String said = "child instance " + child.id() + " ended " + child.status();
      if (reason.startsWith(said)) {
        String why = reason.substring(said.length()).replaceFirst("^: ", "");
        return error.code() + (why.isBlank() ? "" : ": " + why);
      }
    }
    return error.text();
  }

  /**
   * A child workflow step's child: the Workflow it starts, and once it started one the instance's status, linked to
   * its page (its own link: links do not nest). In red when the child is why the step failed, whatever it ended as
   * (failed, compensated, cancelled).
   */
  private static void child(StringBuilder b, Box box, int x, int y) {
    InstanceLink child = box.step() == null ? null : box.step().child();
    String workflow = child != null && child.workflow() != null ? child.workflow() : box.workflow();
    String line = "↳ " + (workflow == null ? "a child workflow" : workflow);
    if (child == null) { // not started (yet), or a step of a map's body: its iterations' children are in their list
      text(b, "detail-note", x, y, cut(line, LINE_CHARS));
      return;
    }
    String status = box.step().failedByItsChild() ? "FAILED" : child.status();
    b.append("<a href=\"").append(esc(InstanceDetailView.href(child.id()))).append("\" data-child=\"")
        .append(esc(child.id())).append("\"><title>").append(esc("child instance " + child.id() + " ("
            + (workflow == null ? "" : workflow + ", ") + child.status() + "): open its page")).append("</title>");
    text(b, "child " + Html.statusClass(status), x, y, cut(line + " · " + child.status(), LINE_CHARS));
    b.append("</a>");
  }

  private static void text(StringBuilder b, String cls, int x, int y, String text) {
    b.append("<text class=\"").append(cls).append("\" x=\"").append(x).append("\" y=\"").append(y).append("\">")
        .append(esc(text)).append("</text>");
  }

  /**
   * Text in at most {@code max} lines of {@code width} characters, broken after a comma or a colon (a count stays
   * with its word); the last line cut.
   */
  static List<String> lines(String text, int width, int max) {
    List<String> lines = new ArrayList<>();
    StringBuilder line = new StringBuilder();
    for (String part : text.split("(?<=[,:] )")) {
      if (line.length() > 0 && line.length() + part.stripTrailing().length() > width && lines.size() < max - 1) {
        lines.add(line.toString().stripTrailing());
        line.setLength(0);
      }
      line.append(part);
    }
    lines.add(cut(line.toString().stripTrailing(), width));
    return lines;
  }

  static String cut(String s, int max) {
    if (s == null) {
      return "";
    }
    return s.length() <= max ? s : s.substring(0, Math.max(1, max - 1)) + "…";
  }
}
