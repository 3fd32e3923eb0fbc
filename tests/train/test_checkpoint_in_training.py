"""Checkpoints in training loops as TensorFlow's tutorials write them (DCGAN: two models, two optimizers and a
`tf.function` train step, `checkpoint.save(file_prefix=...)`, `checkpoint.restore(tf.train.latest_checkpoint(...))`).

The test that matters: a run saved, restored and continued gives the numbers of a run never interrupted, bit for
bit, whether the train step is traced or eager, and whether the restore goes into new objects (deferred until the
models are built and the optimizers make their slots) or into the objects a traced step already uses.
"""

import os

import numpy as np
import pytest

import minitape as tf

pytestmark = pytest.mark.usefixtures("keras_session")


def make_models():
    generator = tf.keras.Sequential([tf.keras.layers.Dense(4, activation="relu"), tf.keras.layers.Dense(3)])
    discriminator = tf.keras.Sequential([tf.keras.layers.Dense(4, activation="relu"), tf.keras.layers.Dense(1)])
    return generator, discriminator


def make_step(generator, discriminator, generator_optimizer, discriminator_optimizer, traced):
    cross_entropy = tf.keras.losses.BinaryCrossentropy(from_logits=True)

    def train_step(images, noise):
        with tf.GradientTape() as gen_tape, tf.GradientTape() as disc_tape:
            generated = generator(noise, training=True)
            real_output = discriminator(images, training=True)
            fake_output = discriminator(generated, training=True)
            gen_loss = cross_entropy(tf.ones_like(fake_output), fake_output)
            disc_loss = cross_entropy(tf.ones_like(real_output), real_output) + cross_entropy(
                tf.zeros_like(fake_output), fake_output
            )
        gen_grads = gen_tape.gradient(gen_loss, generator.trainable_variables)
        disc_grads = disc_tape.gradient(disc_loss, discriminator.trainable_variables)
        generator_optimizer.apply_gradients(zip(gen_grads, generator.trainable_variables))
        discriminator_optimizer.apply_gradients(zip(disc_grads, discriminator.trainable_variables))
        return gen_loss, disc_loss

    return tf.function(train_step) if traced else train_step


def batches(n):
    rng = np.random.default_rng(7)
    return [(rng.normal(size=(8, 3)).astype("float32"), rng.normal(size=(8, 2)).astype("float32")) for _ in range(n)]


def run(step, data):
    return [tuple(float(x) for x in step(images, noise)) for images, noise in data]


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "traced"])
def test_save_restore_continue_equals_an_uninterrupted_run(tmp_path, traced):
    data = batches(6)
    generator, discriminator = make_models()
    generator(data[0][1]), discriminator(data[0][0])
    start = generator.get_weights(), discriminator.get_weights()
    generator_optimizer, discriminator_optimizer = tf.keras.optimizers.Adam(1e-2), tf.keras.optimizers.Adam(1e-2)
    step = make_step(generator, discriminator, generator_optimizer, discriminator_optimizer, traced)
    straight = run(step, data)
    end = generator.get_weights() + discriminator.get_weights()

    generator, discriminator = make_models()
    generator(data[0][1]), discriminator(data[0][0])
    generator.set_weights(start[0]), discriminator.set_weights(start[1])
    generator_optimizer, discriminator_optimizer = tf.keras.optimizers.Adam(1e-2), tf.keras.optimizers.Adam(1e-2)
    checkpoint_dir = str(tmp_path / "training_checkpoints")
    checkpoint_prefix = os.path.join(checkpoint_dir, "ckpt")
    checkpoint = tf.train.Checkpoint(
        generator_optimizer=generator_optimizer,
        discriminator_optimizer=discriminator_optimizer,
        generator=generator,
        discriminator=discriminator,
    )
    step = make_step(generator, discriminator, generator_optimizer, discriminator_optimizer, traced)
    first = run(step, data[:3])
    checkpoint.save(file_prefix=checkpoint_prefix)
    spoiled = run(step, data[3:5])  # steps that the restore below undoes, in the same (traced) step

    checkpoint.restore(tf.train.latest_checkpoint(checkpoint_dir)).assert_consumed()
    again = run(step, data[3:])
    assert first + again == straight and spoiled == straight[3:5]
    assert all(np.array_equal(a, b) for a, b in zip(generator.get_weights() + discriminator.get_weights(), end))

    # into new objects: the models are not built and the optimizers have no slots when restore is called
    generator, discriminator = make_models()
    generator_optimizer, discriminator_optimizer = tf.keras.optimizers.Adam(1e-2), tf.keras.optimizers.Adam(1e-2)
    checkpoint = tf.train.Checkpoint(
        generator_optimizer=generator_optimizer,
        discriminator_optimizer=discriminator_optimizer,
        generator=generator,
        discriminator=discriminator,
    )
    status = checkpoint.restore(tf.train.latest_checkpoint(checkpoint_dir))
    step = make_step(generator, discriminator, generator_optimizer, discriminator_optimizer, traced)
    assert run(step, data[3:]) == straight[3:]
    status.assert_consumed()
    assert int(generator_optimizer.iterations) == 6 and int(checkpoint.save_counter) == 1
