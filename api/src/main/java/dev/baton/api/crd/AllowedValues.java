package dev.baton.api.crd;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The values a string field may take, as a schema {@code enum}, for fields whose Java type stays a plain string because
 * they are handed to Kubernetes as they are (an image pull policy, say).
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.FIELD)
public @interface AllowedValues {
  String[] value();
}
