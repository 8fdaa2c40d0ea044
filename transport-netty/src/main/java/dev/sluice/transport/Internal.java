package dev.sluice.transport;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Not API: the annotated type may change or go away in any release, without notice. It is public only so that
 * another Sluice module can reach it (a Sluice module builds on the one below it: {@code sluice-rpc} and
 * {@code sluice-dubbo} on {@code sluice-codec-dubbo} and {@code sluice-transport-netty}). Applications should not use
 * it; what they use is the rest of each module's public types.
 *
 * <p>Types in a {@code …internal} package ({@code dev.sluice.transport.internal}, {@code
 * dev.sluice.codec.dubbo.internal}) are internal without this mark; it is for types that cannot move there without
 * widening package-private members of the package they share. Each module's tests keep a list of its public API
 * ({@code public-api.txt}) and fail when a public type is neither listed, nor internal, nor marked.
 *
 * <p>Retained at run time so those tests can read it.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface Internal {
}
