package dev.baton.examples;

import dev.baton.worker.BatonWorker;
import dev.baton.worker.CommandResult;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code accounting}: the steps of the child Workflow {@code invoicing} ({@code examples/order-shipments/}), which
 * order-shipments starts for every order. {@code draft} drafts the order's invoice, {@code issue} issues it;
 * {@code void} (compensation of issue) voids an issued invoice and {@code discard} (compensation of draft) throws
 * the draft away. Input (the child's input, with the draft's output merged in): {@code order}, the order id, and
 * {@code lines}, how many items it has.
 *
 * <p>{@code issue} refuses an order whose id starts with {@code "x-"} ({@code failed INVOICE_REFUSED}, a business
 * failure): the child is compensated (the draft discarded), ends {@code COMPENSATED}, and so fails its parent's step.
 *
 * <p>An invoice is kept per child instance (its business key, {@code <parent id>/invoice}), so every command is
 * idempotent: a second {@code draft} or {@code issue} returns the invoice as it is, a {@code void} or {@code discard}
 * with nothing to undo succeeds without changing anything.
 */
public final class AccountingWorker implements ExampleWorker {

  private static final Logger LOG = LoggerFactory.getLogger(AccountingWorker.class);

  /** What the commands read from the child's input. */
  public record InvoiceInput(String order, Integer lines) {}

  /** An invoice: {@code DRAFT}, {@code ISSUED}, {@code VOIDED} or {@code DISCARDED}. */
  public record Invoice(String invoiceId, String order, int lines, String status, Instant at) {

    Invoice to(String newStatus) {
      return new Invoice(invoiceId, order, lines, newStatus, Instant.now());
    }

    Map<String, Object> output() {
      return Map.of("invoiceId", invoiceId, "order", order, "lines", lines, "status", status);
    }
  }

  private final Map<String, Invoice> invoices = new LinkedHashMap<>();
  private final List<Invoice> history = new ArrayList<>();

  /** In a container: {@code java -cp baton-examples-workers-all.jar dev.baton.examples.AccountingWorker}, configured
   * by the environment the operator injects into the pods of WorkerService {@code accounting}. */
  public static void main(String[] args) {
    ExampleMain.run(new AccountingWorker());
  }

  @Override
  public String service() {
    return "accounting";
  }

  @Override
  public BatonWorker.Builder handlers(BatonWorker.Builder builder) {
    return builder
        .command("draft", cmd -> draft(Orders.of(cmd), cmd.inputAs(InvoiceInput.class)))
        .command("issue", cmd -> issue(Orders.of(cmd)))
        .command("void", cmd -> voidInvoice(Orders.of(cmd)))
        .command("discard", cmd -> discard(Orders.of(cmd)));
  }

  /**
   * Drafts the invoice of an order, once per key.
   *
   * @param key the child instance's business key ({@code <parent id>/invoice})
   */
  public synchronized CommandResult draft(String key, InvoiceInput in) {
    Invoice existing = invoices.get(key);
    if (existing != null) {
      return CommandResult.success(existing.output());
    }
    if (in.order() == null || in.order().isBlank()) {
      return CommandResult.failed("NO_ORDER", "nothing to invoice: the input has no order (" + key + ")");
    }
    int lines = in.lines() == null ? 0 : in.lines();
    Invoice draft = new Invoice("INV-" + in.order().toUpperCase(Locale.ROOT), in.order(), lines, "DRAFT",
        Instant.now());
    put(key, draft);
    LOG.info("accounting: drafted invoice {} for order {}, {} line(s)", draft.invoiceId(), draft.order(), lines);
    return CommandResult.success(draft.output());
  }

  /** Issues the drafted invoice, refusing orders whose id starts with {@code x-}. */
  public synchronized CommandResult issue(String key) {
    Invoice invoice = invoices.get(key);
    if (invoice == null) {
      return CommandResult.failed("NO_DRAFT", "no invoice was drafted for " + key);
    }
    if (invoice.status().equals("ISSUED")) {
      return CommandResult.success(invoice.output());
    }
    if (!invoice.status().equals("DRAFT")) {
      return CommandResult.failed("NOT_A_DRAFT", "invoice " + invoice.invoiceId() + " is " + invoice.status());
    }
    if (invoice.order().toLowerCase(Locale.ROOT).startsWith("x-")) {
      LOG.info("accounting: refused to issue invoice {} of order {}", invoice.invoiceId(), invoice.order());
      return CommandResult.failed("INVOICE_REFUSED", "order " + invoice.order()
          + " is not invoiced: ids starting with x- are test orders");
    }
    Invoice issued = put(key, invoice.to("ISSUED"));
    LOG.info("accounting: issued invoice {} for order {}", issued.invoiceId(), issued.order());
    return CommandResult.success(issued.output());
  }

  /** Voids the issued invoice (compensation of issue); one not issued has nothing to void. */
  public synchronized CommandResult voidInvoice(String key) {
    Invoice invoice = invoices.get(key);
    if (invoice == null || !invoice.status().equals("ISSUED")) {
      LOG.info("accounting: no issued invoice for {}, nothing to void", key);
      return CommandResult.success(Map.of("voided", false));
    }
    Invoice voided = put(key, invoice.to("VOIDED"));
    LOG.info("accounting: voided invoice {} of order {} (compensation)", voided.invoiceId(), voided.order());
    return CommandResult.success(Map.of("voided", true, "invoiceId", voided.invoiceId()));
  }

  /** Throws the draft away (compensation of draft); an invoice still issued is left alone (void it first). */
  public synchronized CommandResult discard(String key) {
    Invoice invoice = invoices.get(key);
    if (invoice == null || invoice.status().equals("DISCARDED") || invoice.status().equals("ISSUED")) {
      LOG.info("accounting: no draft to discard for {}", key);
      return CommandResult.success(Map.of("discarded", false));
    }
    Invoice discarded = put(key, invoice.to("DISCARDED"));
    LOG.info("accounting: discarded invoice {} of order {} (compensation)", discarded.invoiceId(), discarded.order());
    return CommandResult.success(Map.of("discarded", true, "invoiceId", discarded.invoiceId()));
  }

  /** The invoice of a child instance's business key, as it is now. */
  public synchronized Optional<Invoice> invoice(String key) {
    return Optional.ofNullable(invoices.get(key));
  }

  /** Every state each invoice went through, oldest first. */
  public synchronized List<Invoice> history() {
    return List.copyOf(history);
  }

  private Invoice put(String key, Invoice invoice) {
    invoices.put(key, invoice);
    history.add(invoice);
    return invoice;
  }
}
