/** Review before posting: the DM with the note, its buttons, the job's status, the settings. */
export const reviewEn = {
  // The job's status message in the thread, and its stage in lists.
  "status.reviewing":
    "The notes are waiting for {user}'s review: nothing is posted here until they post them.",
  "status.discarded": "Discarded by {user}: no notes were posted.",
  "status.expired": "Discarded: nobody posted the notes before they expired.",
  "stage.reviewing": "Waiting for review",
  "stage.discarded": "Discarded",
  "failure.review_unreachable":
    "I could not send the notes for review in a direct message. An admin may need to reinstall the app (it needs to open direct messages), then Retry.",

  // The review's first message, in the bot's direct message with the person.
  "review.coming": "Your notes on {file} for {channel} are on their way for your review…",
  "review.ready":
    "Your notes on {file} for {channel} are ready for your review, in this message's thread: the notes, the Word document and the transcript. Nobody else sees them until you post them.",
  "review.expires": "If nobody posts or discards them, they expire on {date}.",
  "review.posted": "{user} posted these notes to {channel}.",
  "review.discarded": "{user} discarded these notes: nothing was posted in {channel}.",
  "review.expired":
    "These notes expired before anyone posted them: nothing was posted in {channel}.",
  "review.replaced": "A newer version of these notes came for your review, in a message below.",
  "review.reminder":
    "Your notes on {file} for {channel} are still waiting for your review and expire tomorrow: post or discard them in the message above.",
  "review.fallback": "Meeting notes for your review",
  "review.conversation": "the conversation they came from",
  "button.post_to_thread": "Post to thread",
  "button.change_names": "Change names",
  "button.discard": "Discard",
  "confirm.discard.title": "Discard these notes?",
  "confirm.discard.text":
    "Nothing is posted in the channel, and these notes cannot be posted later.",
  "confirm.discard.yes": "Discard",
  "confirm.discard.no": "Keep them",
  "permission.starter_or_admin.post":
    "Only the person who started these notes, or a workspace admin, can post them, and only while in the channel the notes are for.",
  "permission.starter_or_admin.discard":
    "Only the person who started these notes, or a workspace admin, can discard them, and only while in the channel the notes are for.",
  "command.wrong_stage.review": "These notes are not waiting for review any more.",

  // The channel settings modal and the /meeting-notes modal.
  "settings.review_label": "Review before posting",
  "settings.review_option": "Send the notes first to the person who started them",
  "settings.review_hint":
    "They reach this channel only when that person posts them; they can also discard them. Off unless turned on.",
  "settings.change.review_on": "notes go first to the person who started them, for review",
  "settings.change.review_off": "notes are posted without review",
  "new_notes.review_label": "Review",
  "new_notes.review_option": "Send me the notes to review before they are posted",
  "new_notes.review_hint": "Always on where the channel's settings ask for review.",
} as const;

export const reviewVi: { readonly [K in keyof typeof reviewEn]: string } = {
  "status.reviewing":
    "Biên bản đang chờ {user} duyệt: chưa có gì được đăng ở đây cho đến khi người đó đăng.",
  "status.discarded": "{user} đã bỏ biên bản: không có biên bản nào được đăng.",
  "status.expired": "Đã bỏ: không ai đăng biên bản trước khi hết hạn.",
  "stage.reviewing": "Đang chờ duyệt",
  "stage.discarded": "Đã bỏ",
  "failure.review_unreachable":
    "Tôi không gửi được biên bản để duyệt qua tin nhắn riêng. Quản trị viên có thể cần cài lại ứng dụng (ứng dụng cần quyền mở tin nhắn riêng), rồi bấm Thử lại.",

  "review.coming": "Biên bản {file} cho {channel} đang được gửi để bạn duyệt…",
  "review.ready":
    "Biên bản {file} cho {channel} đã sẵn sàng để bạn duyệt, trong luồng của tin nhắn này: biên bản, tài liệu Word và bản ghi lời nói. Không ai khác thấy chúng cho đến khi bạn đăng.",
  "review.expires": "Nếu không ai đăng hoặc bỏ, biên bản sẽ hết hạn vào {date}.",
  "review.posted": "{user} đã đăng biên bản này vào {channel}.",
  "review.discarded": "{user} đã bỏ biên bản này: không có gì được đăng trong {channel}.",
  "review.expired":
    "Biên bản này đã hết hạn trước khi có người đăng: không có gì được đăng trong {channel}.",
  "review.replaced":
    "Một phiên bản mới hơn của biên bản đã được gửi để bạn duyệt, ở tin nhắn bên dưới.",
  "review.reminder":
    "Biên bản {file} cho {channel} vẫn đang chờ bạn duyệt và sẽ hết hạn vào ngày mai: hãy đăng hoặc bỏ ở tin nhắn phía trên.",
  "review.fallback": "Biên bản cuộc họp chờ bạn duyệt",
  "review.conversation": "cuộc trò chuyện gốc",
  "button.post_to_thread": "Đăng vào luồng",
  "button.change_names": "Đổi tên",
  "button.discard": "Bỏ",
  "confirm.discard.title": "Bỏ biên bản này?",
  "confirm.discard.text": "Không có gì được đăng vào kênh, và biên bản này không thể đăng sau đó.",
  "confirm.discard.yes": "Bỏ",
  "confirm.discard.no": "Giữ lại",
  "permission.starter_or_admin.post":
    "Chỉ người tạo biên bản này hoặc quản trị viên workspace mới có thể đăng, và chỉ khi đang ở trong kênh của biên bản.",
  "permission.starter_or_admin.discard":
    "Chỉ người tạo biên bản này hoặc quản trị viên workspace mới có thể bỏ, và chỉ khi đang ở trong kênh của biên bản.",
  "command.wrong_stage.review": "Biên bản này không còn chờ duyệt nữa.",

  "settings.review_label": "Duyệt trước khi đăng",
  "settings.review_option": "Gửi biên bản trước cho người đã tạo",
  "settings.review_hint":
    "Biên bản chỉ đến kênh này khi người đó đăng; họ cũng có thể bỏ. Tắt nếu không bật.",
  "settings.change.review_on": "biên bản được gửi trước cho người tạo để duyệt",
  "settings.change.review_off": "biên bản được đăng không cần duyệt",
  "new_notes.review_label": "Duyệt",
  "new_notes.review_option": "Gửi biên bản cho tôi duyệt trước khi đăng",
  "new_notes.review_hint": "Luôn bật ở những kênh có cài đặt yêu cầu duyệt.",
};
