"""Writes the sources' two test images, deterministically: an 8K JPEG of
about 1.4 MB (test_image_2.jpg) and a small PNG of about 7 KB
(test_image_1.png). usage: gen_images.py DIR [--width 7680 --height 4320]
Prints JSON with the paths and sizes.
"""
import argparse
import json
import os
import random

from PIL import Image, ImageDraw, ImageFilter


def picture(w, h, seed):
    rnd = random.Random(seed)
    # A smooth gradient base plus shapes plus a little blurred noise: the mix
    # gives a photo-like JPEG size (pure gradients compress to nothing, pure
    # noise to several MB).
    small = Image.new("RGB", (max(w // 16, 1), max(h // 16, 1)))
    px = small.load()
    sw, sh = small.size
    for y in range(sh):
        for x in range(sw):
            px[x, y] = (int(255 * x / max(sw - 1, 1)), int(255 * y / max(sh - 1, 1)),
                        rnd.randrange(96, 160))
    img = small.resize((w, h), Image.BILINEAR)
    d = ImageDraw.Draw(img)
    for _ in range(60):
        x0, y0 = rnd.randrange(w), rnd.randrange(h)
        r = rnd.randrange(max(w // 40, 2), max(w // 8, 3))
        col = (rnd.randrange(256), rnd.randrange(256), rnd.randrange(256))
        if rnd.random() < 0.5:
            d.ellipse([x0 - r, y0 - r, x0 + r, y0 + r], fill=col)
        else:
            d.rectangle([x0 - r, y0 - r // 2, x0 + r, y0 + r // 2], outline=col, width=max(w // 400, 1))
    noise = Image.effect_noise((w, h), 24).convert("RGB").filter(ImageFilter.GaussianBlur(1))
    return Image.blend(img, noise, 0.065)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("dir")
    p.add_argument("--width", type=int, default=7680)
    p.add_argument("--height", type=int, default=4320)
    p.add_argument("--quality", type=int, default=85)
    a = p.parse_args()
    os.makedirs(a.dir, exist_ok=True)
    big = os.path.join(a.dir, "test_image_2.jpg")
    picture(a.width, a.height, 2).save(big, quality=a.quality)
    small = os.path.join(a.dir, "test_image_1.png")
    picture(96, 72, 1).save(small)
    print(json.dumps({"large": big, "large_bytes": os.path.getsize(big),
                      "small": small, "small_bytes": os.path.getsize(small),
                      "width": a.width, "height": a.height}))


if __name__ == "__main__":
    main()
