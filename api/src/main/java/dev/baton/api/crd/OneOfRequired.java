package dev.baton.api.crd;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * An object that takes exactly one of a few shapes, each a set of fields it must have: a schema {@code oneOf} of
 * {@code required} lists, which the API server (and the dev API's schema check) applies at no CEL cost. Each value is
 * one shape, its fields comma-separated, e.g. {@code {"service,pattern", "workflow"}}.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface OneOfRequired {
  String[] value();
}
