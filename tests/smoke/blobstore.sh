# blobstore.sh -- the blob smoke scripts' view of the stored objects, whichever store the stack
# has: the directory $POUCH_VAR/blobs, or the bucket of POUCH_BLOB_STORE=s3://BUCKET (read
# straight from the store with curl --aws-sigv4; tests/s3/run.sh runs the scripts so).
# Sourced after tests/smoke/lib.sh ($SMOKE_TMP).
# shellcheck shell=bash

blob_dir=$POUCH_VAR/blobs

blobstore_is_s3() { [[ ${POUCH_BLOB_STORE:-} == s3://* ]]; }

# s3_curl METHOD ACCOUNT/ID [curl args]: a signed request for the object (curl 7.88 does not
# send x-amz-content-sha256, which RGW requires).
s3_curl() {
    local method=$1 key=$2
    shift 2
    curl -sS --max-time 30 -X "$method" --aws-sigv4 "aws:amz:${POUCH_S3_REGION:-us-east-1}:s3" \
        --user "$POUCH_S3_ACCESS_KEY:$POUCH_S3_SECRET_KEY" -H 'x-amz-content-sha256: UNSIGNED-PAYLOAD' \
        "$@" "$POUCH_S3_ENDPOINT/${POUCH_BLOB_STORE#s3://}/$key"
}

# blob_object ACCOUNT ID: prints a path holding the object's bytes; the path does not exist
# when the object does not.
blob_object() {
    if ! blobstore_is_s3; then
        echo "$blob_dir/$1/$2"
        return
    fi
    local out=$SMOKE_TMP/object.$1.$2 code
    rm -f "$out" "$out.part"
    code=$(s3_curl GET "$1/$2" -o "$out.part" -w '%{http_code}') || code=000
    if [[ $code == 200 ]]; then mv "$out.part" "$out"; else rm -f "$out.part"; fi
    echo "$out"
}

# blob_object_stamp ACCOUNT ID: what changes when the object is written again (inode, mtime
# and size of the file; Last-Modified and ETag of the object).
blob_object_stamp() {
    if ! blobstore_is_s3; then
        stat -c '%i %Y %s' "$blob_dir/$1/$2"
        return
    fi
    s3_curl HEAD "$1/$2" -I | tr -d '\r' | grep -iE '^(last-modified|etag):' | sort
}

# blob_object_put ACCOUNT ID FILE: stores an object behind the service's back (a stray one).
blob_object_put() {
    if ! blobstore_is_s3; then
        mkdir -p "$blob_dir/$1"
        cp "$3" "$blob_dir/$1/$2"
        return
    fi
    s3_curl PUT "$1/$2" -o /dev/null --data-binary "@$3"
}
