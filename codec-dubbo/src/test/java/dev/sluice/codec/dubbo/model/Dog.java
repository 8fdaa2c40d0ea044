package dev.sluice.codec.dubbo.model;

/** Not reachable from any service interface: refused unless allowed explicitly. */
public class Dog extends Animal {
    private static final long serialVersionUID = 1L;
    private String breed;

    public Dog() {
    }

    public Dog(String name, String breed) {
        super(name);
        this.breed = breed;
    }

    public String getBreed() {
        return breed;
    }
}
