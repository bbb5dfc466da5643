"""Source 000's image upload, four handler styles (csbe_study/routers/
uploader.py and service/image.py), mounted under /commiter as in the
source's k6 script:

  /commiter/upload_sync         def handler (AnyIO thread pool, 40 tokens)
  /commiter/upload_asyncio      async def + gather(convert_image_async, insert_async):
                                the CPU work runs on the event loop
  /commiter/upload_threadpool   run_in_executor(thread_executor, ...) twice
  /commiter/upload_processpool  run_in_executor(process_executor, convert), then a
                                sync insert on the loop
  /health                       async def, answers at once (shows a blocked loop)

The insert goes to MySQL/MariaDB (PyMySQL sync, aiomysql async) when
CONCLAB_DB_HOST is set, else to SQLite. Uploads and outputs are written under
CONCLAB_UPLOAD_DIR and deleted after the insert unless CONCLAB_KEEP_FILES=1
(the source keeps them; a load test would fill the disk).
CONCLAB_THREAD_WORKERS / CONCLAB_PROCESS_WORKERS size the executors (default:
Python's own, min(32, cpus+4) threads and one process per CPU).
"""
import asyncio
import os
import uuid
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

from fastapi import APIRouter, FastAPI, File, UploadFile
from PIL import Image

from _conclab import AsyncDB, SyncDB, env_int, env_str, table_name


class ImageProcessor:
    @staticmethod
    async def convert_image_async(image_path: str, output_path: str):
        image = Image.open(image_path)
        image = image.convert("RGB")
        image = image.rotate(180)
        image = image.rotate(180)
        image = image.rotate(180)
        image = image.rotate(180)
        image.save(output_path)
        return output_path

    @staticmethod
    def convert_image(image_path: str, output_path: str):
        image = Image.open(image_path)
        image = image.convert("RGB")
        image = image.rotate(180)
        image = image.rotate(180)
        image = image.rotate(180)
        image = image.rotate(180)
        image.save(output_path)
        return output_path


class BaseRepository:
    def __init__(self):
        self.sync = SyncDB(table_name("conclab_images"), ["image_path"])
        self.sync.create()
        self.adb = AsyncDB(self.sync)

    def insert_sync(self, values):
        self.sync.insert(values)

    async def insert_async(self, values):
        await self.adb.insert(values)


def _workers(name):
    n = env_int(name, 0)
    return n if n > 0 else None


thread_executor = ThreadPoolExecutor(max_workers=_workers("CONCLAB_THREAD_WORKERS"))
process_executor = ProcessPoolExecutor(max_workers=_workers("CONCLAB_PROCESS_WORKERS"))
baseRepository = BaseRepository()
UPLOAD_DIR = env_str("CONCLAB_UPLOAD_DIR", "uploads")
os.makedirs(UPLOAD_DIR, exist_ok=True)
KEEP = env_str("CONCLAB_KEEP_FILES", "0") == "1"

router = APIRouter(prefix="/commiter")


def _save_image(file: UploadFile):
    name = os.path.basename(file.filename or "upload.jpg")
    stem, ext = os.path.splitext(name)
    key = uuid.uuid4().hex
    image_path = os.path.join(UPLOAD_DIR, f"{key}_{stem}{ext}")
    output_path = os.path.join(UPLOAD_DIR, f"{key}_{stem}_output{ext or '.jpg'}")
    with open(image_path, "wb") as f:
        f.write(file.file.read())
    return image_path, output_path


def _cleanup(*paths):
    if KEEP:
        return
    for p in paths:
        try:
            os.remove(p)
        except OSError:
            pass


# 1. 동기 처리: def 핸들러 → FastAPI가 자동으로 threadpool에서 실행한다
@router.post("/upload_sync")
def upload_sync(file: UploadFile = File(...)):
    image_path, output_path = _save_image(file)
    ImageProcessor.convert_image(image_path, output_path)
    baseRepository.insert_sync({"image_path": output_path})
    _cleanup(image_path, output_path)
    return {"image_path": image_path, "output_path": output_path}


# 2. asyncio 처리: async def인데 CPU 작업을 그대로 실행 → 이벤트 루프를 블로킹한다
@router.post("/upload_asyncio")
async def upload_asyncio(file: UploadFile = File(...)):
    image_path, output_path = _save_image(file)
    await asyncio.gather(
        ImageProcessor.convert_image_async(image_path, output_path),
        baseRepository.insert_async({"image_path": output_path}),
    )
    _cleanup(image_path, output_path)
    return {"image_path": image_path, "output_path": output_path}


# 3. ThreadPool 처리: CPU 작업을 스레드로 보내지만, GIL 때문에 진짜 병렬 실행은 안 된다
@router.post("/upload_threadpool")
async def upload_threadpool(file: UploadFile = File(...)):
    image_path, output_path = _save_image(file)
    loop = asyncio.get_running_loop()
    await loop.run_in_executor(
        thread_executor, ImageProcessor.convert_image, image_path, output_path
    )
    await loop.run_in_executor(
        thread_executor, baseRepository.insert_sync, {"image_path": output_path}
    )
    _cleanup(image_path, output_path)
    return {"image_path": image_path, "output_path": output_path}


# 4. ProcessPool 처리: CPU 작업을 별도 프로세스로 보낸다 → GIL 우회
@router.post("/upload_processpool")
async def upload_processpool(file: UploadFile = File(...)):
    image_path, output_path = _save_image(file)
    loop = asyncio.get_running_loop()
    await loop.run_in_executor(
        process_executor, ImageProcessor.convert_image, image_path, output_path
    )
    baseRepository.insert_sync({"image_path": output_path})
    _cleanup(image_path, output_path)
    return {"image_path": image_path, "output_path": output_path}


app = FastAPI()
app.include_router(router)


@app.get("/ready")
async def ready():
    return {"ok": True, "pid": os.getpid()}


@app.get("/health")
async def health():
    return {"status": "ok"}


@app.on_event("shutdown")
async def _shutdown():
    await baseRepository.adb.close()
    thread_executor.shutdown(wait=False, cancel_futures=True)
    process_executor.shutdown(wait=False, cancel_futures=True)


# Per-request traces when CONCLAB_TRACE_DIR is set (not part of the source).
from _conclab import trace_fastapi  # noqa: E402

trace_fastapi(app)
