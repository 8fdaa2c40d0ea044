package dev.sluice.codec.dubbo.model;

/** A service whose contract is small, to probe what the allowlist accepts. */
public interface ProbeService {
    Object echo(Object value);

    Animal adopt(Animal animal);
}
