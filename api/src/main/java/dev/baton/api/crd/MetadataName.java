package dev.baton.api.crd;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Restricts {@code metadata.name} of a custom resource beyond Kubernetes' own rule (a DNS-1123 subdomain of up to 253
 * characters): a CRD schema may restrict {@code metadata.name} and nothing else of the metadata. Used where the name
 * becomes a label value or part of broker names.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface MetadataName {
  int maxLength();

  /** A regular expression the name must match; empty for none. */
  String pattern() default "";
}
